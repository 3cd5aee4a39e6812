import t from 'tap'
import { createHash } from 'node:crypto'
import { registerUser } from '@svc/testkit'
import { bearer, buildAuthApp } from './fixtures/auth-app.js'

function refresh (app: Awaited<ReturnType<typeof buildAuthApp>>, refreshToken: unknown) {
  return app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } })
}

t.test('refresh rotates: new pair works, the old token is dead', async (t) => {
  const app = await buildAuthApp(t)
  const { refreshToken, user } = await registerUser(app)

  const first = await refresh(app, refreshToken)
  t.equal(first.statusCode, 200, 'POST /auth/refresh')
  const pair = first.json()
  t.same(Object.keys(pair).sort(), ['accessToken', 'refreshToken'])
  t.not(pair.refreshToken, refreshToken, 'rotated')
  const probe = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(pair.accessToken) })
  t.equal(probe.json().userId, user._id, 'new access token identifies the user')

  const stored = await app.svc.db
    .collection<{ _id: string; familyId: string; usedAt: Date | null; expiresAt: Date }>('refresh_tokens')
    .find({})
    .toArray()
  t.equal(stored.length, 2, 'two tokens of the family stored')
  t.ok(
    stored.every((d) => d._id !== refreshToken && d._id !== pair.refreshToken),
    'raw tokens never stored'
  )
  t.ok(
    stored.some((d) => d._id === createHash('sha256').update(pair.refreshToken).digest('hex')),
    'stored as SHA-256'
  )
  t.equal(new Set(stored.map((d) => d.familyId)).size, 1, 'same family')
  const live = stored.find((d) => d.usedAt == null)
  const days = ((live?.expiresAt.getTime() ?? 0) - Date.now()) / 86_400_000
  t.ok(days > 29.9 && days <= 30, `30-day lifetime (${days.toFixed(2)} days)`)

  const second = await refresh(app, pair.refreshToken)
  t.equal(second.statusCode, 200, 'the new token refreshes again')
})

t.test('reuse of a rotated token revokes the whole family', async (t) => {
  const app = await buildAuthApp(t)
  const { refreshToken } = await registerUser(app)
  const other = await registerUser(app)

  const rotated = (await refresh(app, refreshToken)).json().refreshToken
  const reuse = await refresh(app, refreshToken)
  t.equal(reuse.statusCode, 401, 'reused token refused')
  t.equal(reuse.json().error.code, 'UNAUTHENTICATED')
  const sibling = await refresh(app, rotated)
  t.equal(sibling.statusCode, 401, 'the sibling issued by the rotation is revoked too')
  t.equal((await refresh(app, other.refreshToken)).statusCode, 200, "another user's family is untouched")
})

t.test('concurrent refreshes with one token: exactly one succeeds', async (t) => {
  const app = await buildAuthApp(t)
  for (let round = 0; round < 3; round++) {
    const { refreshToken } = await registerUser(app)
    const results = await Promise.all(Array.from({ length: 5 }, async () => await refresh(app, refreshToken)))
    const codes = results.map((r) => r.statusCode).sort()
    t.same(codes, [200, 401, 401, 401, 401], `round ${round}: one winner`)
    // The losers were in flight together with the winner: a double submit, not a replay, so the
    // winner's session survives.
    const winner = results.find((r) => r.statusCode === 200)?.json()
    t.equal((await refresh(app, winner.refreshToken)).statusCode, 200, `round ${round}: the winner's new token works`)
    // Presented again after the exchange completed: that is reuse.
    t.equal((await refresh(app, refreshToken)).statusCode, 401, `round ${round}: later replay refused`)
  }
})

t.test('unknown, expired, revoked and malformed refresh tokens', async (t) => {
  const app = await buildAuthApp(t)
  const { refreshToken } = await registerUser(app)

  const unknown = await refresh(app, 'definitely-not-issued')
  t.equal(unknown.statusCode, 401, 'unknown')
  t.equal(unknown.json().error.code, 'UNAUTHENTICATED')

  await app.svc.db.collection('refresh_tokens').updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } })
  t.equal((await refresh(app, refreshToken)).statusCode, 401, 'expired')

  for (const payload of [{}, { refreshToken: '' }, { refreshToken: 'x'.repeat(600) }]) {
    const res = await app.inject({ method: 'POST', url: '/auth/refresh', payload })
    t.equal(res.statusCode, 400, `malformed body ${JSON.stringify(payload)}`)
    t.equal(res.json().error?.details?.field, 'refreshToken')
  }
})

t.test('refresh mints the current roles of the user', async (t) => {
  const app = await buildAuthApp(t)
  const { refreshToken, user } = await registerUser(app)
  await app.svc.db.collection('users').updateOne({ email: user.email }, { $set: { roles: ['user', 'admin'] } })
  const { accessToken } = (await refresh(app, refreshToken)).json()
  const probe = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(accessToken) })
  t.same(probe.json().roles, ['user', 'admin'])
})
