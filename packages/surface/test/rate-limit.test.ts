import t from 'tap'
import { buildApp, bearer, testDb } from './helper.js'

const ALICE = '65f0000000000000000000a1'
const LOGIN = { email: 'nobody@example.test', password: 'wrong password 123' }

t.test('rate limits (per process)', async (t) => {
  const db = await testDb(t)
  const app = await buildApp(t, db, { rateLimit: { apiPerMin: 5, authPerMin: 3 } })

  t.test('the auth budget: 429 RATE_LIMITED with Retry-After and x-ratelimit-*', async (t) => {
    const remoteAddress = '10.0.0.1'
    for (let i = 1; i <= 3; i++) {
      const res = await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress })
      t.equal(res.statusCode, 401, `wrong login ${i} is refused as such`)
      t.equal(res.headers['x-ratelimit-limit'], '3')
      t.equal(res.headers['x-ratelimit-remaining'], String(3 - i))
      t.ok(Number(res.headers['x-ratelimit-reset']) > 0, 'x-ratelimit-reset')
    }
    const res = await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress })
    t.equal(res.statusCode, 429, 'the 4th in the minute')
    t.equal(res.json().error.code, 'RATE_LIMITED')
    t.match(res.json().error, { message: /rate limit exceeded/, details: { limit: 3 } })
    const retryAfter = Number(res.headers['retry-after'])
    t.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`)
    t.equal(res.headers['x-ratelimit-remaining'], '0')
    t.equal(
      (await app.inject({ method: 'POST', url: '/register', payload: {}, remoteAddress })).statusCode,
      429,
      '/register shares the auth budget'
    )
    t.equal(
      (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.0.0.2' })).statusCode,
      401,
      'another IP has its own budget'
    )
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer(ALICE), remoteAddress })).statusCode,
      200,
      'the API budget is separate'
    )
  })

  t.test('the API budget covers every /api route and unknown /api URLs, and surfaces by path', async (t) => {
    const remoteAddress = '10.0.1.1'
    const urls = ['/api/v1/notes', '/api/v1/notes/65f0000000000000000000ff', '/api/v1/nothing-here', '/mcp', '/graphql']
    const codes = []
    for (const url of urls) {
      codes.push((await app.inject({ method: 'GET', url, headers: bearer(ALICE), remoteAddress })).statusCode)
    }
    t.same(codes, [200, 404, 404, 404, 404], 'five requests answered normally')
    const res = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer(ALICE), remoteAddress })
    t.equal(res.statusCode, 429, 'the sixth, on any of them')
    t.equal(res.json().error.code, 'RATE_LIMITED')
    const unauth = await app.inject({ method: 'GET', url: '/api/v1/notes', remoteAddress })
    t.equal(unauth.statusCode, 429, 'counted before authentication: no token does not bypass it')
  })

  t.test('other routes are not limited', async (t) => {
    const remoteAddress = '10.0.2.1'
    for (let i = 0; i < 8; i++) {
      const res = await app.inject({ method: 'GET', url: '/_describe', remoteAddress })
      t.equal(res.statusCode, 200)
      t.equal(res.headers['x-ratelimit-limit'], undefined)
    }
    t.equal(
      (await app.inject({ method: 'GET', url: '/apiary', remoteAddress })).statusCode,
      404,
      'a prefix match is on path segments'
    )
  })
})

t.test('rateLimit: false adds nothing', async (t) => {
  const app = await buildApp(t, await testDb(t), { rateLimit: false })
  for (let i = 0; i < 12; i++) {
    const res = await app.inject({ method: 'POST', url: '/login', payload: LOGIN })
    t.equal(res.statusCode, 401)
    t.equal(res.headers['x-ratelimit-limit'], undefined)
  }
})

t.test('defaults: 10 per minute per IP on /login, 5 per e-mail address', async (t) => {
  const app = await buildApp(t, await testDb(t), {})
  const codes = []
  for (let i = 0; i < 11; i++) {
    codes.push(
      (await app.inject({ method: 'POST', url: '/login', payload: { ...LOGIN, email: `n${i}@example.test` } }))
        .statusCode
    )
  }
  t.same(codes, [...Array(10).fill(401), 429])
  const perEmail = []
  for (let i = 0; i < 6; i++) {
    perEmail.push(
      (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: `10.3.0.${i}` })).statusCode
    )
  }
  t.same(perEmail, [...Array(5).fill(401), 429])
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer(ALICE) })).headers['x-ratelimit-limit'],
    '600'
  )
})
