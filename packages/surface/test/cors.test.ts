import t from 'tap'
import { buildApp, bearer, testDb } from './helper.js'

const ALICE = '65f0000000000000000000a1'
const APP = 'https://app.example.test'
const EVIL = 'https://evil.example.test'

t.test('CORS', async (t) => {
  const db = await testDb(t)

  t.test('no origins: no cross-origin request is accepted', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    const res = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: { ...bearer(ALICE), origin: APP } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['access-control-allow-origin'], undefined, 'no Access-Control-Allow-Origin at all')
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/notes',
      headers: { origin: APP, 'access-control-request-method': 'POST' }
    })
    t.equal(pre.statusCode, 404, 'no preflight is answered')
    t.equal(pre.headers['access-control-allow-origin'], undefined)
  })

  t.test('an allowlist', async (t) => {
    const app = await buildApp(t, db, {
      rateLimit: { apiPerMin: 3 },
      cors: { origins: [APP, 'http://localhost:5173'] }
    })

    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/notes',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key'
      },
      remoteAddress: '10.3.0.1'
    })
    t.equal(pre.statusCode, 204, 'preflight of an allowed origin')
    t.equal(pre.headers['access-control-allow-origin'], APP)
    t.same(String(pre.headers['access-control-allow-headers']).split(/,\s*/), [
      'authorization',
      'content-type',
      'idempotency-key',
      'x-client-id',
      'x-request-id'
    ])
    t.match(pre.headers['access-control-allow-methods'], /PUT/)
    t.match(pre.headers['access-control-allow-methods'], /DELETE/)
    t.equal(pre.headers['access-control-max-age'], '600')
    t.equal(pre.headers['access-control-allow-credentials'], undefined, 'no credentials: tokens travel in a header')
    t.match(pre.headers.vary, /Origin/)

    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes',
      headers: { ...bearer(ALICE), origin: APP },
      remoteAddress: '10.3.0.1'
    })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['access-control-allow-origin'], APP)
    t.match(res.headers['access-control-expose-headers'], /x-request-id/)
    t.match(res.headers['access-control-expose-headers'], /retry-after/)
    t.match(res.headers['access-control-expose-headers'], /x-ratelimit-remaining/)
    t.equal(res.headers['x-ratelimit-remaining'], '2', 'the preflight was not counted against the budget')

    const refused = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/notes',
      headers: { origin: EVIL, 'access-control-request-method': 'DELETE' }
    })
    t.equal(refused.statusCode, 404, 'preflight of another origin: as if CORS did not exist')
    t.equal(refused.json().error.code, 'NOT_FOUND')
    t.equal(refused.headers['access-control-allow-origin'], undefined)
    t.equal(refused.headers['access-control-allow-methods'], undefined)
    const other = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: { ...bearer(ALICE), origin: EVIL } })
    t.equal(other.headers['access-control-allow-origin'], undefined, 'no header for another origin')
    t.equal(
      (
        await app.inject({
          method: 'GET',
          url: '/_describe',
          headers: { origin: 'https://app.example.test.evil.test' }
        })
      ).headers['access-control-allow-origin'],
      undefined,
      'exact match, not a prefix'
    )
    t.equal(
      (await app.inject({ method: 'GET', url: '/_describe', headers: { origin: 'http://localhost:5173' } })).headers[
        'access-control-allow-origin'
      ],
      'http://localhost:5173'
    )
  })
})
