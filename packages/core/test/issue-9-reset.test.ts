import { EventEmitter } from 'node:events'
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { getTestDb, registerUser, signToken } from '@svc/testkit'
import svcCore from '../src/index.js'
import type { PasswordChangeBroadcast, SvcCoreOptions } from '../src/types.js'
import { TEST_SECRET, bearer } from './fixtures/auth-app.js'

/** Stands for one process of a deployment: several may share a database. */
async function processOn (
  t: { teardown(fn: () => unknown): void },
  db: Db,
  lines: string[],
  opts: Partial<SvcCoreOptions> = {}
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: 'info',
      stream: {
        write: (line: string) => {
          lines.push(line)
        }
      }
    }
  })
  await app.register(svcCore, { db, jwtSecret: TEST_SECRET, bcryptRounds: 4, schemas: [], ...opts })
  app.get('/whoami', async (request) => await app.svc.auth.authenticate(request))
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}

/** Asks for a reset of `email` and returns the token from the logged mail (no SMTP configured). */
async function resetToken (app: FastifyInstance, lines: string[], email: string): Promise<string> {
  const before = lines.length
  t.equal((await app.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email } })).statusCode, 202)
  for (let i = 0; i < 300; i++) {
    const mail = lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.mail?.to === email)
    if (mail != null) return /token[^:]*: (\S+)/.exec(mail.mail.text)?.[1] as string
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('no reset mail logged')
}

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

t.test('a completed reset voids every other outstanding reset token of the user, and only theirs', async (t) => {
  const { db } = await getTestDb(t)
  const lines: string[] = []
  const app = await processOn(t, db, lines)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const first = await resetToken(app, lines, user.user.email)
  const second = await resetToken(app, lines, user.user.email)
  const third = await resetToken(app, lines, user.user.email)
  const othersToken = await resetToken(app, lines, other.user.email)

  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token: second, password: 'second-new-password' }
      })
    ).statusCode,
    200,
    'reset with the second link'
  )
  for (const [name, token] of [
    ['earlier', first],
    ['later', third]
  ]) {
    const res = await app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: { token, password: 'attacker-password' }
    })
    t.equal(res.statusCode, 400, `an ${name} link of the same user is void`)
    t.match(res.json(), { error: { code: 'VALIDATION', details: { field: 'token' } } })
  }
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: user.user.email, password: 'second-new-password' }
      })
    ).statusCode,
    200,
    'the password set by the completed reset stands'
  )
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token: othersToken, password: 'others-new-password' }
      })
    ).statusCode,
    200,
    "another user's link still works"
  )
})

t.test('access tokens issued before a reset stop working; tokens issued after it work', async (t) => {
  const { db } = await getTestDb(t)
  const lines: string[] = []
  const app = await processOn(t, db, lines)
  const user = await registerUser(app)
  const bystander = await registerUser(app)
  const now = Math.floor(Date.now() / 1000)
  const older = signToken(
    { user_id: user.user._id, email: user.user.email, roles: ['user'], iat: now - 60 },
    TEST_SECRET
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/whoami', headers: user.headers })).statusCode,
    200,
    'the login token works before the reset'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/whoami', headers: bearer(older) })).statusCode,
    200,
    'so does an older one'
  )
  // `iat` is in whole seconds and a same-second token stays valid: step past the login's second.
  await sleep(1100)
  const token = await resetToken(app, lines, user.user.email)
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, password: 'brand-new-password' }
      })
    ).statusCode,
    200
  )

  for (const [name, headers] of [
    ['the login token', user.headers],
    ['an older token', bearer(older)]
  ] as const) {
    const res = await app.inject({ method: 'GET', url: '/whoami', headers })
    t.equal(res.statusCode, 401, `${name} is refused at once`)
    t.same(res.json(), {
      error: { code: 'UNAUTHENTICATED', message: 'token issued before a password reset: log in again' }
    })
  }
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: user.user.email, password: 'brand-new-password' }
  })
  t.equal(login.statusCode, 200, 'log in again (same second as the reset)')
  t.equal(
    (await app.inject({ method: 'GET', url: '/whoami', headers: bearer(login.json().accessToken) })).statusCode,
    200,
    'the new token works'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/whoami', headers: bystander.headers })).statusCode,
    200,
    "another user's token is untouched"
  )
  const madeUp = signToken(
    { user_id: 'not-a-registered-user', email: 'x@example.test', roles: ['user'], iat: now - 60 },
    TEST_SECRET
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/whoami', headers: bearer(madeUp) })).statusCode,
    200,
    'a minted token for an id without a user record keeps working'
  )
  t.ok(
    (await db.collection('users').findOne({ email: user.user.email }))?.passwordChangedAt instanceof Date,
    'passwordChangedAt recorded'
  )
})

t.test('another process refuses pre-reset tokens within its staleness bound', async (t) => {
  const { db } = await getTestDb(t)
  const linesA: string[] = []
  const a = await processOn(t, db, linesA)
  const b = await processOn(t, db, [], { resetStalenessMs: 400 })
  const user = await registerUser(a)
  t.equal(
    (await b.inject({ method: 'GET', url: '/whoami', headers: user.headers })).statusCode,
    200,
    'B accepts (and caches) the token'
  )
  await sleep(1100)
  const token = await resetToken(a, linesA, user.user.email)
  t.equal(
    (
      await a.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, password: 'brand-new-password' }
      })
    ).statusCode,
    200,
    'reset completed on A'
  )
  const resetAt = Date.now()
  let status = 200
  while (status === 200 && Date.now() - resetAt < 5000) {
    status = (await b.inject({ method: 'GET', url: '/whoami', headers: user.headers })).statusCode
    if (status === 200) await sleep(50)
  }
  const waited = Date.now() - resetAt
  t.equal(status, 401, 'B refuses the pre-reset token')
  t.ok(waited <= 400 + 300, `within the 400 ms bound (plus scheduling): ${waited} ms`)
})

t.test('with a passwordChangeBroadcast another process refuses pre-reset tokens at once', async (t) => {
  const { db } = await getTestDb(t)
  // Stands for the cluster primary's relay or Redis pub/sub: every subscriber hears every publish.
  const bus = new EventEmitter()
  const broadcast: PasswordChangeBroadcast = {
    publish: async (userId) => {
      bus.emit('changed', userId)
    },
    subscribe: (fn) => {
      bus.on('changed', fn)
    }
  }
  const linesA: string[] = []
  const a = await processOn(t, db, linesA, { passwordChangeBroadcast: broadcast })
  const b = await processOn(t, db, [], { passwordChangeBroadcast: broadcast })
  const user = await registerUser(a)
  t.equal(
    (await b.inject({ method: 'GET', url: '/whoami', headers: user.headers })).statusCode,
    200,
    'B accepts (and caches for 10 s) the token'
  )
  await sleep(1100)
  const token = await resetToken(a, linesA, user.user.email)
  t.equal(
    (
      await a.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, password: 'brand-new-password' }
      })
    ).statusCode,
    200,
    'reset completed on A'
  )
  t.equal(
    (await b.inject({ method: 'GET', url: '/whoami', headers: user.headers })).statusCode,
    401,
    'B refuses it on the next request'
  )
})

t.test('a failed broadcast still completes the reset (the staleness bound remains)', async (t) => {
  const { db } = await getTestDb(t)
  const lines: string[] = []
  const a = await processOn(t, db, lines, {
    passwordChangeBroadcast: {
      publish: async () => {
        throw new Error('relay down')
      },
      subscribe: () => {}
    }
  })
  const user = await registerUser(a)
  const token = await resetToken(a, lines, user.user.email)
  t.equal(
    (
      await a.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, password: 'brand-new-password' }
      })
    ).statusCode,
    200
  )
  t.ok(
    lines.some((l) => /password change broadcast failed/.test(l)),
    'logged'
  )
  t.equal(
    (
      await a.inject({
        method: 'POST',
        url: '/login',
        payload: { email: user.user.email, password: 'brand-new-password' }
      })
    ).statusCode,
    200,
    'the new password stands'
  )
})

t.test('resetStalenessMs must be a positive whole number', async (t) => {
  const { db } = await getTestDb(t)
  await t.rejects(processOn(t, db, [], { resetStalenessMs: 0 }), /resetStalenessMs/)
  await t.rejects(processOn(t, db, [], { resetStalenessMs: 1.5 }), /resetStalenessMs/)
})
