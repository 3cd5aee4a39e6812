import t from 'tap'
import { bearer, buildAuthApp } from './fixtures/auth-app.js'

const person = { first_name: 'Ada', last_name: 'Lovelace', email: 'Ada@Example.TEST', password: 'analytical-engine' }

t.test('register → 201 with user and tokens, never the hash', async (t) => {
  const app = await buildAuthApp(t)
  const res = await app.inject({
    method: 'POST',
    url: '/register',
    payload: { ...person, roles: ['admin'], userId: 'x', passwordHash: 'x' }
  })
  t.equal(res.statusCode, 201, 'POST /register')
  const body = res.json()
  t.match(body.user, {
    _id: /^[0-9a-f]{24}$/,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.test',
    roles: ['user']
  })
  t.same(
    Object.keys(body.user).sort(),
    ['_id', 'createdAt', 'email', 'first_name', 'last_name', 'roles', 'updatedAt'],
    'only public user fields'
  )
  t.notMatch(res.body, /\$2[aby]\$/, 'no bcrypt hash anywhere in the response')
  t.notMatch(res.body, /passwordHash|analytical-engine/, 'no password material in the response')
  t.type(body.accessToken, 'string')
  t.type(body.refreshToken, 'string')
  t.notMatch(body.refreshToken, /\./, 'refresh token is opaque, not a JWT')

  const stored = await app.svc.db.collection('users').findOne({ email: 'ada@example.test' })
  t.match(stored?.passwordHash, /^\$2[aby]\$04\$/, 'bcrypt hash stored with the configured cost')

  const probe = await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(body.accessToken) })
  t.equal(probe.statusCode, 200, 'access token works')
  t.match(probe.json(), { kind: 'user', userId: body.user._id, email: 'ada@example.test', roles: ['user'] })
})

t.test('duplicate e-mail (any case) → 409 CONFLICT', async (t) => {
  const app = await buildAuthApp(t)
  t.equal((await app.inject({ method: 'POST', url: '/register', payload: person })).statusCode, 201, 'first register')
  for (const email of ['ada@example.test', 'ADA@EXAMPLE.TEST', '  ada@example.test ']) {
    const res = await app.inject({ method: 'POST', url: '/register', payload: { ...person, email } })
    t.equal(res.statusCode, 409, `register again as ${JSON.stringify(email)}`)
    t.equal(res.json().error?.code, 'CONFLICT')
  }
  t.equal(await app.svc.db.collection('users').countDocuments({}), 1, 'still one user')
})

t.test('register validation names the field', async (t) => {
  const app = await buildAuthApp(t)
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing email', { ...person, email: undefined }, 'email'],
    ['bad email', { ...person, email: 'not-an-email' }, 'email'],
    ['short password', { ...person, password: 'short' }, 'password'],
    ['password over 72 bytes', { ...person, password: 'é'.repeat(40) }, 'password'],
    ['object as first_name', { ...person, first_name: { a: 1 } }, 'first_name'],
    ['missing last_name', { ...person, last_name: undefined }, 'last_name']
  ]
  for (const [name, payload, field] of cases) {
    const res = await app.inject({ method: 'POST', url: '/register', payload })
    t.equal(res.statusCode, 400, `${name}: status`)
    t.equal(res.json().error?.code, 'VALIDATION', `${name}: code`)
    t.match(res.json().error?.message, field, `${name}: message names ${field}`)
    t.equal(res.json().error?.details?.field, field, `${name}: details.field`)
  }
})

t.test('login → 200; bad credentials → identical 401 for wrong password and unknown e-mail', async (t) => {
  const app = await buildAuthApp(t)
  await app.inject({ method: 'POST', url: '/register', payload: person })

  const ok = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'ADA@example.test', password: person.password }
  })
  t.equal(ok.statusCode, 200, 'POST /login with mixed-case e-mail')
  const body = ok.json()
  t.equal(body.user.email, 'ada@example.test')
  t.notMatch(ok.body, /\$2[aby]\$|passwordHash/, 'no hash in the login response')
  t.equal(
    (await app.inject({ method: 'GET', url: '/probe/read', headers: bearer(body.accessToken) })).statusCode,
    200,
    'login token works'
  )

  const wrongPassword = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: person.email, password: 'wrong-password' }
  })
  const unknownEmail = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'nobody@example.test', password: 'wrong-password' }
  })
  t.equal(wrongPassword.statusCode, 401, 'wrong password')
  t.equal(unknownEmail.statusCode, 401, 'unknown e-mail')
  t.equal(wrongPassword.json().error.code, 'UNAUTHENTICATED')
  t.same(wrongPassword.json(), unknownEmail.json(), 'same body for both failure kinds')

  const missing = await app.inject({ method: 'POST', url: '/login', payload: { email: person.email } })
  t.equal(missing.statusCode, 400, 'missing password')
  t.equal(missing.json().error?.details?.field, 'password')
})
