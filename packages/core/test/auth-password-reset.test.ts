import t from 'tap'
import { registerUser } from '@svc/testkit'
import { buildAuthApp } from './fixtures/auth-app.js'

t.test('forgot → reset → login with the new password; token single use', async (t) => {
  // No mailer configured: the spec has the message body written to the log.
  const lines: string[] = []
  const app = await buildAuthApp(t, {}, lines)
  const mails = (): Array<{ to: string; text: string }> =>
    lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.mail != null)
      .map((l) => l.mail)
  const nextMail = async (): Promise<void> => {
    for (let i = 0; i < 200 && mails().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const user = await registerUser(app)

  const unknown = await app.inject({
    method: 'POST',
    url: '/auth/forgot-password',
    payload: { email: 'nobody@example.test' }
  })
  t.equal(unknown.statusCode, 202, 'unknown e-mail still 202')

  const known = await app.inject({
    method: 'POST',
    url: '/auth/forgot-password',
    payload: { email: user.user.email.toUpperCase() }
  })
  t.equal(known.statusCode, 202, 'known e-mail 202')
  t.same(known.json(), unknown.json(), 'same body either way')
  await nextMail()
  t.equal(mails().length, 1, 'one mail, to the registered user only')
  t.equal(mails()[0].to, user.user.email)
  const token = /token[^:]*: (\S+)/.exec(mails()[0].text)?.[1] as string
  t.ok(token, 'mail carries the token')
  t.equal(
    await app.svc.db.collection('password_resets').countDocuments({ _id: token as never }),
    0,
    'raw token not stored'
  )

  const reset = await app.inject({
    method: 'POST',
    url: '/auth/reset-password',
    payload: { token, password: 'brand-new-password' }
  })
  t.equal(reset.statusCode, 200, 'POST /auth/reset-password')
  t.same(reset.json(), { ok: true })

  const again = await app.inject({
    method: 'POST',
    url: '/auth/reset-password',
    payload: { token, password: 'another-password' }
  })
  t.equal(again.statusCode, 400, 'used token refused')
  t.equal(again.json().error.code, 'VALIDATION')

  t.equal(
    (await app.inject({ method: 'POST', url: '/login', payload: { email: user.user.email, password: user.password } }))
      .statusCode,
    401,
    'old password dead'
  )
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: user.user.email, password: 'brand-new-password' }
      })
    ).statusCode,
    200,
    'new password works'
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: user.refreshToken } }))
      .statusCode,
    401,
    'sessions from before the reset are revoked'
  )

  const bogus = await app.inject({
    method: 'POST',
    url: '/auth/reset-password',
    payload: { token: 'bogus', password: 'brand-new-password' }
  })
  t.equal(bogus.statusCode, 400, 'bogus token')
})
