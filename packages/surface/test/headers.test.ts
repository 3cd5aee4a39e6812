import t from 'tap'
import { buildApp, testDb } from './helper.js'

t.test('security headers and load shedding', async (t) => {
  const db = await testDb(t)

  t.test('security headers for a JSON API', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    const res = await app.inject({ method: 'GET', url: '/_describe' })
    t.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'")
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['x-frame-options'], 'SAMEORIGIN')
    t.match(res.headers['strict-transport-security'], /max-age=\d+/)
    t.equal(res.headers['cross-origin-resource-policy'], 'cross-origin')
    t.equal(res.headers['x-powered-by'], undefined)
    const missing = await app.inject({ method: 'GET', url: '/nope' })
    t.equal(missing.headers['x-content-type-options'], 'nosniff', 'errors too')
  })

  t.test('an HTML page of another plugin does not get the JSON policy', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    const docs = await app.inject({ method: 'GET', url: '/api-docs/' })
    t.match(docs.headers['content-security-policy'], /script-src 'self'/, 'the docs page keeps its own')
    const json = await app.inject({ method: 'GET', url: '/api-docs/swagger.json' })
    t.equal(
      json.headers['content-security-policy'],
      "default-src 'none';frame-ancestors 'none'",
      'JSON keeps the strict one'
    )
  })

  t.test('securityHeaders: false', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false, securityHeaders: false })
    t.equal((await app.inject({ method: 'GET', url: '/_describe' })).headers['content-security-policy'], undefined)
  })

  t.test('under pressure: 503 SERVICE_UNAVAILABLE in the envelope with Retry-After', async (t) => {
    // A heap bound of one byte: the process is always "saturated", deterministically.
    const app = await buildApp(t, db, {
      rateLimit: false,
      metrics: {},
      loadShedding: { maxHeapUsedBytes: 1, retryAfterSeconds: 7 }
    })
    // Memory is sampled on a timer (once a second): wait for the first sample.
    for (let i = 0; i < 60 && !app.isUnderPressure(); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    const res = await app.inject({ method: 'GET', url: '/_describe' })
    t.equal(res.statusCode, 503)
    t.same(res.json(), {
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the service is overloaded (heapUsedBytes); retry in 7 s' }
    })
    t.equal(res.headers['retry-after'], '7')
    t.equal(res.headers['x-content-type-options'], 'nosniff', 'security headers still set')
    t.equal(app.isUnderPressure(), true)
    t.match(
      (await app.inject({ method: 'GET', url: '/_metrics' })).statusCode,
      503,
      'every route sheds, metrics included'
    )
  })

  t.test('not under pressure by default', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    t.equal(app.isUnderPressure(), false)
    t.equal((await app.inject({ method: 'GET', url: '/_describe' })).statusCode, 200)
  })
})
