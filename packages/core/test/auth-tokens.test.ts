import t from 'tap'
import { signToken, userClaims } from '@svc/testkit'
import { signAccessToken } from '../src/auth/index.js'
import { bearer, buildAuthApp, TEST_SECRET } from './fixtures/auth-app.js'

function b64url (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

t.test('every kind of bad token is 401 UNAUTHENTICATED in the envelope', async (t) => {
  const app = await buildAuthApp(t)
  const claims = userClaims()
  const valid = signToken(claims, TEST_SECRET)
  const [, validPayload, validSig] = valid.split('.')
  const cases: Array<[string, Record<string, string>]> = [
    ['missing', {}],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['basic scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['bearer without scheme', { authorization: valid }],
    ['not a jwt', bearer('not-a-jwt')],
    ['garbage segments', bearer('abc.def.ghi')],
    ['expired', bearer(signToken(claims, TEST_SECRET, { expiresIn: -60 }))],
    ['wrong signature', bearer(signToken(claims, 'another-secret'))],
    [
      'tampered payload',
      bearer(
        `${valid.split('.')[0]}.${b64url({ ...claims, roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 900 })}.${validSig}`
      )
    ],
    ['alg none', bearer(signToken(claims, TEST_SECRET, { alg: 'none' }))],
    ['alg none with signature kept', bearer(`${b64url({ alg: 'none', typ: 'JWT' })}.${validPayload}.${validSig}`)],
    ['alg NONE uppercase', bearer(`${b64url({ alg: 'NONE', typ: 'JWT' })}.${validPayload}.`)],
    ['HS512 with the right secret', bearer(signToken(claims, TEST_SECRET, { alg: 'HS512' }))],
    [
      'RS256 header over an HMAC signature',
      bearer(`${b64url({ alg: 'RS256', typ: 'JWT' })}.${validPayload}.${validSig}`)
    ],
    ['missing user_id', bearer(signToken({ email: 'a@b.c', roles: ['user'] }, TEST_SECRET))],
    ['roles not an array', bearer(signToken(userClaims({ roles: 'admin' }), TEST_SECRET))],
    ['no exp', bearer(signToken(userClaims({ exp: undefined }), TEST_SECRET))]
  ]
  for (const [name, headers] of cases) {
    for (const [method, url] of [
      ['GET', '/probe/read'],
      ['POST', '/probe/write']
    ] as const) {
      const res = await app.inject({ method, url, headers })
      t.equal(res.statusCode, 401, `${name}: ${method} ${url} status`)
      const body = res.json()
      t.equal(body.error?.code, 'UNAUTHENTICATED', `${name}: ${method} ${url} code`)
      t.type(body.error?.message, 'string', `${name}: ${method} ${url} message`)
    }
  }
})

t.test('a valid HS256 token resolves the identity from its claims', async (t) => {
  const app = await buildAuthApp(t)
  const token = signToken(userClaims({ account_id: 'acc-1', roles: ['user', 'agent'] }), TEST_SECRET)
  const res = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(token) })
  t.equal(res.statusCode, 200, 'GET /probe/read')
  const lower = await app.inject({ method: 'GET', url: '/probe/read', headers: { authorization: `bearer ${token}` } })
  t.equal(lower.statusCode, 200, 'scheme is case-insensitive')
  t.same(res.json(), {
    kind: 'user',
    userId: '65f000000000000000000001',
    email: 'someone@example.test',
    roles: ['user', 'agent'],
    accountId: 'acc-1'
  })
})

t.test('tokens minted by the service and by signAccessToken are interchangeable', async (t) => {
  const app = await buildAuthApp(t)
  const claims = { user_id: 'u-1', email: 'x@example.test', roles: ['user'] }
  const minted = app.svc.auth.mintAccessToken(claims)
  const offline = signAccessToken(TEST_SECRET, claims, 60)
  for (const token of [minted, offline]) {
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())
    t.equal(header.alg, 'HS256', 'header alg')
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
    t.ok(payload.exp > payload.iat, 'exp after iat')
    const res = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(token) })
    t.equal(res.statusCode, 200, 'GET /probe/read with minted token')
    t.equal(res.json().userId, 'u-1')
  }
  const payload = JSON.parse(
    Buffer.from(app.svc.auth.mintAccessToken(claims, 120).split('.')[1], 'base64url').toString()
  )
  t.equal(payload.exp - payload.iat, 120, 'explicit ttl honoured')
  const dflt = JSON.parse(Buffer.from(minted.split('.')[1], 'base64url').toString())
  t.equal(dflt.exp - dflt.iat, 900, 'default ttl is 15 minutes')
  t.notOk('extra' in payload, 'no stray claims')
})

t.test('auth.identify: the same check for credentials without a request (a WebSocket connection_init)', async (t) => {
  const app = await buildAuthApp(t)
  const token = signToken(userClaims({ roles: ['user'] }), TEST_SECRET)
  const viaRequest = (await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(token) })).json()
  t.same(await app.svc.auth.identify(bearer(token)), viaRequest, 'the identity authenticate gives the request')
  await t.rejects(app.svc.auth.identify(bearer('abc.def.ghi')), { statusCode: 401, code: 'UNAUTHENTICATED' })
  await t.rejects(app.svc.auth.identify(bearer(signToken(userClaims(), TEST_SECRET, { expiresIn: -60 }))), {
    statusCode: 401,
    message: 'token expired'
  })
  await t.rejects(app.svc.auth.identify({}), { statusCode: 401, message: 'authentication required' })
  await t.rejects(app.svc.auth.identify({ 'x-client-id': 'nobody' }, { allowClient: true }), {
    statusCode: 401,
    message: 'unknown client id'
  })
})

t.test(
  'a token verified once (remembered) still expires on time, and no request changes what the next one sees',
  async (t) => {
    const app = await buildAuthApp(t)
    // `exp` 2–3 seconds ahead: verified now (and remembered), refused once it has passed.
    const exp = Math.floor(Date.now() / 1000) + 3
    const token = signToken(userClaims({ roles: ['user'], exp }), TEST_SECRET)
    const first = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(token) })
    t.equal(first.statusCode, 200, 'verified')
    const identity = await app.svc.auth.identify(bearer(token))
    identity.roles.push('admin')
    t.same((await app.svc.auth.identify(bearer(token))).roles, ['user'], 'an identity handed out is a copy')
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50))
    const later = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(token) })
    t.equal(later.statusCode, 401, 'expired although verified before')
    t.equal(later.json().error.message, 'token expired')
    // A tampered copy of a remembered token is not the same token: refused.
    const [h, , s] = token.split('.')
    const forged = `${h}.${Buffer.from(JSON.stringify(userClaims({ roles: ['admin'], exp: exp + 900 }))).toString('base64url')}.${s}`
    t.equal((await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(forged) })).statusCode, 401)
  }
)
