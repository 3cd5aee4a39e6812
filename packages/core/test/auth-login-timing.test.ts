import t from 'tap'
import { buildAuthApp } from './fixtures/auth-app.js'

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

// Real cost (10 rounds): the dummy-hash comparison must make an unknown e-mail cost what a wrong
// password costs. Medians of interleaved samples keep scheduler noise out; the bound is loose
// (0.5–2×) because the difference we guard against is "no bcrypt at all", i.e. 50× and more.
t.test('wrong password and unknown e-mail take comparable time', async (t) => {
  const app = await buildAuthApp(t, { bcryptRounds: 10 })
  const email = 'timing@example.test'
  await app.inject({
    method: 'POST',
    url: '/register',
    payload: { first_name: 'T', last_name: 'T', email, password: 'right-password' }
  })

  const time = async (payload: Record<string, string>): Promise<number> => {
    const start = process.hrtime.bigint()
    const res = await app.inject({ method: 'POST', url: '/login', payload })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    t.equal(res.statusCode, 401, `login ${payload.email}`)
    return ms
  }
  await time({ email, password: 'warm-up' })
  await time({ email: 'nobody@example.test', password: 'warm-up' })

  const wrongPassword: number[] = []
  const unknownEmail: number[] = []
  const pairRatios: number[] = []
  for (let i = 0; i < 9; i++) {
    const wrong = async (): Promise<number> => await time({ email, password: `wrong-${i}` })
    const unknown = async (): Promise<number> =>
      await time({ email: `nobody-${i}@example.test`, password: `wrong-${i}` })
    // Alternate the order so neither kind always runs first in a pair.
    let a: number
    let b: number
    if (i % 2 === 0) {
      a = await wrong()
      b = await unknown()
    } else {
      b = await unknown()
      a = await wrong()
    }
    wrongPassword.push(a)
    unknownEmail.push(b)
    pairRatios.push(b / a)
  }
  // Adjacent pairs see the same machine load, so the median pair ratio is robust to a busy CI box.
  const ratio = median(pairRatios)
  t.comment(
    `median wrong password ${median(wrongPassword).toFixed(1)} ms, unknown e-mail ${median(unknownEmail).toFixed(1)} ms, ratio ${ratio.toFixed(2)}`
  )
  t.ok(median(wrongPassword) > 10, 'a real bcrypt comparison happens (cost 10)')
  t.ok(ratio > 0.5 && ratio < 2, `ratio ${ratio.toFixed(2)} within 0.5–2`)
})
