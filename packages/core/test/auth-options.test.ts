import t from 'tap'
import Fastify from 'fastify'
import { getTestDb, registerUser } from '@svc/testkit'
import svcCore from '../src/index.js'
import { buildAuthApp, TEST_SECRET } from './fixtures/auth-app.js'

const DAY = 24 * 60 * 60 * 1000

async function refreshLifetimeMs (app: Awaited<ReturnType<typeof buildAuthApp>>): Promise<number> {
  await registerUser(app)
  const doc = await app.svc.db.collection('refresh_tokens').findOne({})
  return (doc?.expiresAt as Date).getTime() - ((doc?.createdAt as Date) ?? new Date()).getTime()
}

t.test('refreshTokenTtl: default 30 days, a duration string when given', async (t) => {
  const dflt = await refreshLifetimeMs(await buildAuthApp(t))
  t.ok(Math.abs(dflt - 30 * DAY) < 60_000, 'unset: 30 days')
  const short = await refreshLifetimeMs(await buildAuthApp(t, { refreshTokenTtl: '2d' }))
  t.ok(Math.abs(short - 2 * DAY) < 60_000, "'2d': two days")
})

t.test('publicBaseUrl puts a reset link in the (logged) mail; a bad value stops start-up', async (t) => {
  const lines: string[] = []
  const app = await buildAuthApp(t, { publicBaseUrl: 'https://app.example.test/' }, lines)
  const user = await registerUser(app)
  t.equal(
    (await app.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email: user.user.email } }))
      .statusCode,
    202
  )
  const mail = async (): Promise<{ text: string } | undefined> =>
    lines.map((l) => JSON.parse(l)).find((l) => l.mail != null)?.mail
  for (let i = 0; i < 200 && (await mail()) === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  const text = (await mail())?.text ?? ''
  const token = /token[^:]*: (\S+)/.exec(text)?.[1] ?? ''
  t.ok(
    text.includes(`Reset your password: https://app.example.test/reset-password?token=${encodeURIComponent(token)}`),
    'the link, one slash, token encoded'
  )

  const { db } = await getTestDb(t)
  for (const opts of [{ publicBaseUrl: 'app.example.test' }, { refreshTokenTtl: 'soon' }]) {
    const bad = Fastify({ logger: false })
    t.teardown(async () => await bad.close())
    await t.rejects(
      async () => {
        await bad.register(svcCore, { db, jwtSecret: TEST_SECRET, schemas: [], ...opts }).ready()
      },
      `refused: ${JSON.stringify(opts)}`
    )
  }
})
