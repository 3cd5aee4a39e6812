import t from 'tap'
import { buildApp, bearer, testDb } from './helper.js'

const ALICE = '65f0000000000000000000a1'

t.test('metrics', async (t) => {
  const db = await testDb(t)

  t.test('off by default: /_metrics is a 404 in the envelope', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    const res = await app.inject({ method: 'GET', url: '/_metrics' })
    t.equal(res.statusCode, 404)
    t.equal(res.json().error.code, 'NOT_FOUND')
  })

  t.test('enabled: templates as route labels, unmatched under one label, default metrics', async (t) => {
    const app = await buildApp(t, db, { metrics: {}, rateLimit: false })
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: bearer(ALICE),
      payload: { title: 'n' }
    })
    t.equal(created.statusCode, 201, 'POST /api/v1/notes')
    const id = String(created.json()._id)
    t.equal((await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers: bearer(ALICE) })).statusCode, 200)
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/notes/65f0000000000000000000ff', headers: bearer(ALICE) }))
        .statusCode,
      404
    )
    t.equal((await app.inject({ method: 'GET', url: '/no/such/path/a1b2c3' })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/api/v1/notes' })).statusCode, 401)

    const res = await app.inject({ method: 'GET', url: '/_metrics' })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
    const text = res.body
    t.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/v1\/notes\/:id",status_code="200"\} 1\n/,
      'GET /:id under its template'
    )
    t.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/v1\/notes\/:id",status_code="404"\} 1\n/,
      'a 404 of a matched route keeps its template'
    )
    t.match(text, /http_requests_total\{method="POST",route="\/api\/v1\/notes",status_code="201"\} 1\n/)
    t.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/v1\/notes",status_code="401"\} 1\n/,
      'refusals are counted'
    )
    t.match(
      text,
      /http_requests_total\{method="GET",route="__unmatched__",status_code="404"\} 1\n/,
      'unmatched under the fixed label'
    )
    t.notOk(text.includes(id) || text.includes('a1b2c3'), 'no raw URL or id in any label')
    t.match(
      text,
      /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/notes\/:id",status_code="200"\} \d+\n/
    )
    t.match(
      text,
      /http_request_duration_seconds_bucket\{le="5",method="GET",route="\/api\/v1\/notes\/:id",status_code="200"\} 1\n/,
      'buckets up to 5 s'
    )
    t.match(
      text,
      /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/notes\/:id",status_code="200"\} 1\n/
    )
    t.match(text, /# TYPE process_cpu_user_seconds_total counter/, 'default runtime metrics')
    t.match(text, /# TYPE nodejs_eventloop_lag_seconds gauge/)
    t.match(text, /# TYPE redis_errors_total counter/)
  })

  t.test('METRICS_TOKEN: only the exact bearer gets the metrics', async (t) => {
    const app = await buildApp(t, db, { metrics: { token: 'metrics-token-1234' }, rateLimit: false })
    for (const authorization of [
      undefined,
      'Bearer metrics-token-123',
      'Bearer metrics-token-12345',
      'Basic metrics-token-1234',
      'metrics-token-1234'
    ]) {
      const res = await app.inject({
        method: 'GET',
        url: '/_metrics',
        headers: authorization === undefined ? {} : { authorization }
      })
      t.equal(res.statusCode, 401, `authorization ${String(authorization)}`)
      t.equal(res.json().error.code, 'UNAUTHENTICATED')
      t.equal(res.headers['www-authenticate'], 'Bearer')
    }
    const ok = await app.inject({
      method: 'GET',
      url: '/_metrics',
      headers: { authorization: 'Bearer metrics-token-1234' }
    })
    t.equal(ok.statusCode, 200)
    t.match(ok.body, /http_requests_total\{method="GET",route="\/_metrics",status_code="401"\} 5\n/)
  })

  t.test('custom path', async (t) => {
    const app = await buildApp(t, db, { metrics: { path: '/internal/metrics' }, rateLimit: false })
    t.equal((await app.inject({ method: 'GET', url: '/internal/metrics' })).statusCode, 200)
    t.equal((await app.inject({ method: 'GET', url: '/_metrics' })).statusCode, 404)
  })
})
