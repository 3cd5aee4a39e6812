import t from 'tap'
import SwaggerParser from '@apidevtools/swagger-parser'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

const SECRET = 'server-surface-test-secret'
const RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const LOGIN = { email: 'nobody@example.test', password: 'wrong password 123' }
const auth = {
  authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, SECRET)}`
}

t.test('the reference server wires metrics, rate limits and the client IP from its environment', async (t) => {
  const { db } = await getTestDb(t)
  const schemaDir = workspace().schemaDir
  const server = async (env: Record<string, string>): Promise<Awaited<ReturnType<typeof buildServer>>> => {
    const { config, problems } = loadConfig({ JWT_SECRET: SECRET, SCHEMA_DIR: schemaDir, ...env })
    if (config == null) throw new Error(problems.join('; '))
    const app = await buildServer(config, { db, logger: false })
    t.teardown(async () => await app.close())
    await app.ready()
    return app
  }

  t.test('METRICS_ENABLED: REST and MCP requests under their templates; METRICS_TOKEN enforced', async (t) => {
    const app = await server({ NODE_ENV: 'test', METRICS_ENABLED: 'true', METRICS_TOKEN: 'scrape-me-please' })
    const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth, payload: { title: 'x' } })
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/v1/notes/${String(created.json()._id)}`, headers: auth }))
        .statusCode,
      200
    )
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...RPC, ...auth },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
    })
    t.equal(mcp.statusCode, 200, 'POST /mcp')
    t.equal((await app.inject({ method: 'GET', url: '/_metrics' })).statusCode, 401, 'no token')
    const text = (
      await app.inject({ method: 'GET', url: '/_metrics', headers: { authorization: 'Bearer scrape-me-please' } })
    ).body
    t.match(text, /http_requests_total\{method="GET",route="\/api\/v1\/notes\/:id",status_code="200"\} 1\n/)
    t.match(text, /http_requests_total\{method="POST",route="\/mcp",status_code="200"\} 1\n/)
    t.match(text, /http_request_duration_seconds_count\{method="POST",route="\/mcp",status_code="200"\} 1\n/)
  })

  t.test('metrics off by default', async (t) => {
    const app = await server({ NODE_ENV: 'test' })
    t.equal((await app.inject({ method: 'GET', url: '/_metrics' })).statusCode, 404)
  })

  t.test('NODE_ENV=test skips rate limits', async (t) => {
    const app = await server({ NODE_ENV: 'test', RATE_LIMIT_AUTH_PER_MIN: '1' })
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'POST', url: '/login', payload: LOGIN })
      t.equal(res.statusCode, 401)
      t.equal(res.headers['x-ratelimit-limit'], undefined)
    }
  })

  t.test('a development instance limits /login and /mcp per client IP', async (t) => {
    const app = await server({ NODE_ENV: 'development', RATE_LIMIT_AUTH_PER_MIN: '2', RATE_LIMIT_API_PER_MIN: '2' })
    const codes = []
    for (let i = 0; i < 3; i++) {
      codes.push(
        (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.9.0.1' })).statusCode
      )
    }
    t.same(codes, [401, 401, 429])
    const limited = await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.9.0.1' })
    t.equal(limited.json().error.code, 'RATE_LIMITED')
    t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After')
    const call = async (): Promise<number> =>
      (
        await app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { ...RPC, ...auth },
          payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
          remoteAddress: '10.9.0.2'
        })
      ).statusCode
    t.same([await call(), await call(), await call()], [200, 200, 429], 'MCP shares the API budget')
    // Without TRUST_PROXY, X-Forwarded-For is the client's word and is ignored.
    const spoofed = await app.inject({
      method: 'POST',
      url: '/login',
      payload: LOGIN,
      remoteAddress: '10.9.0.1',
      headers: { 'x-forwarded-for': '203.0.113.9' }
    })
    t.equal(spoofed.statusCode, 429, 'a forged X-Forwarded-For does not reset the budget')
  })

  t.test('percent-encoded paths are the routes they decode to: counted on REST, GraphQL and MCP', async (t) => {
    const app = await server({ NODE_ENV: 'development', RATE_LIMIT_API_PER_MIN: '3' })
    const surfaces: Array<[string, string, unknown]> = [
      ['/%61pi/v1/notes', 'GET', undefined],
      ['/%67raphql', 'POST', { query: '{ notesMany { _id } }' }],
      ['/%6dcp', 'POST', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]
    ]
    for (const [i, [url, method, payload]] of surfaces.entries()) {
      const headers = {
        ...RPC,
        authorization: `Bearer ${signToken({ user_id: `65f00000000000000000010${i}`, email: `p${i}@example.test`, roles: ['user'] }, SECRET)}`
      }
      const codes = []
      for (let n = 0; n < 4; n++) {
        codes.push(
          (
            await app.inject({
              method: method as 'GET',
              url,
              headers,
              payload: payload as object,
              remoteAddress: `10.9.5.${i}`
            })
          ).statusCode
        )
      }
      t.same(codes, [200, 200, 200, 429], `${url}: the matched route's budget`)
    }
  })

  t.test(
    'REQUEST_COST_LIMIT and RATE_LIMIT_COST_PER_MIN reach the cost model (the budget over time off in test mode)',
    async (t) => {
      const app = await server({ NODE_ENV: 'development', REQUEST_COST_LIMIT: '1000', RATE_LIMIT_COST_PER_MIN: '5000' })
      t.same(
        { ...app.svc.cost.limits, store: undefined },
        { maxRequestCost: 1000, tenantCostPerMinute: 5000, store: undefined }
      )
      t.equal(app.svc.cost.limits.store, app.svcSurface.usageStore, "the rate limits' counters")
      const priced = await app.inject({ method: 'GET', url: '/api/v1/notes?__perPage=200', headers: auth })
      t.match(priced.json().error, { code: 'VALIDATION', details: { limit: 1000 } })
      const test = await server({ NODE_ENV: 'test', RATE_LIMIT_COST_PER_MIN: '5000' })
      t.equal(test.svc.cost.limits.tenantCostPerMinute, null)
    }
  )

  t.test('CORS_ORIGINS: allowed origins get CORS headers and preflights, others nothing', async (t) => {
    const app = await server({ NODE_ENV: 'test', CORS_ORIGINS: 'https://app.example.test' })
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        origin: 'https://app.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type'
      }
    })
    t.equal(pre.statusCode, 204)
    t.equal(pre.headers['access-control-allow-origin'], 'https://app.example.test')
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes',
      headers: { ...auth, origin: 'https://app.example.test' }
    })
    t.equal(res.headers['access-control-allow-origin'], 'https://app.example.test')
    t.match(res.headers['access-control-expose-headers'], /x-request-id/)
    const other = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/notes',
      headers: { origin: 'https://other.example.test', 'access-control-request-method': 'GET' }
    })
    t.equal(other.statusCode, 404)
    t.equal(other.headers['access-control-allow-origin'], undefined)
    const none = await server({ NODE_ENV: 'test' })
    t.equal(
      (await none.inject({ method: 'GET', url: '/_describe', headers: { origin: 'https://app.example.test' } }))
        .headers['access-control-allow-origin'],
      undefined,
      'unset: no cross-origin request accepted'
    )
  })

  t.test('security headers on every answer', async (t) => {
    const app = await server({ NODE_ENV: 'test' })
    const res = await app.inject({ method: 'GET', url: '/healthz' })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'")
    const graphiql = await app.inject({ method: 'GET', url: '/graphiql' })
    t.equal(graphiql.statusCode, 200, 'GraphiQL outside production')
    t.equal(
      graphiql.headers['content-security-policy'],
      undefined,
      "an HTML page is not blanked by the JSON API's policy"
    )
    t.equal(graphiql.headers['x-content-type-options'], 'nosniff')
  })

  t.test('the Swagger document covers every plugin of the reference server and is valid 2.0', async (t) => {
    const app = await server({ NODE_ENV: 'test', METRICS_ENABLED: 'true' })
    const doc = (await app.inject({ method: 'GET', url: '/api-docs/swagger.json' })).json()
    await t.resolves(SwaggerParser.validate(structuredClone(doc)), 'valid (swagger-parser)')
    t.match(doc.info, { title: 'svc API', version: 'v1' })
    for (const [path, method] of [
      ['/healthz', 'get'],
      ['/_metrics', 'get'],
      ['/mcp', 'post'],
      ['/api/v1/notes/{id}/restore', 'post'],
      ['/api/v1/notes/{id}/history', 'get'],
      ['/api/v1/notes/{id}', 'delete'],
      ['/login', 'post']
    ]) {
      t.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`)
    }
    t.equal((await app.inject({ method: 'GET', url: '/api-docs/' })).statusCode, 200, 'the UI')
  })

  t.test(
    'REDIS_URL: core caches aggregations in the shared store; Redis down, requests are still served',
    async (t) => {
      // Nothing listens on port 1: every Redis call fails at once.
      const app = await server({
        NODE_ENV: 'development',
        REDIS_URL: 'redis://127.0.0.1:1',
        RATE_LIMIT_AUTH_PER_MIN: '2',
        METRICS_ENABLED: 'true'
      })
      t.ok(app.svcSurface.aggregationCache !== null)
      // The one schema here has no cached aggregation to show it by effect, so look at the wiring:
      // aggregationCache is core's own member, off the public ResourceService type.
      const notes = app.svc.services.get('notes') as unknown as { aggregationCache: unknown }
      t.equal(notes.aggregationCache, app.svcSurface.aggregationCache, 'the store core uses')
      t.equal((await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth })).statusCode, 200)
      const codes = []
      for (let i = 0; i < 3; i++) {
        codes.push(
          (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.9.1.1' })).statusCode
        )
      }
      t.same(codes, [401, 401, 429], 'limits still hold per process')
      t.match(
        (await app.inject({ method: 'GET', url: '/_metrics' })).body,
        /redis_errors_total\{use="rate_limit"\} [1-9]/
      )
    }
  )

  t.test('TRUST_PROXY=1: the client IP is the address the proxy saw', async (t) => {
    const app = await server({ NODE_ENV: 'development', RATE_LIMIT_AUTH_PER_MIN: '1', TRUST_PROXY: '1' })
    const login = async (client: string): Promise<number> =>
      (
        await app.inject({
          method: 'POST',
          url: '/login',
          payload: LOGIN,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client }
        })
      ).statusCode
    t.same(
      [await login('203.0.113.1'), await login('203.0.113.1'), await login('203.0.113.2')],
      [401, 429, 401],
      'one budget per forwarded client'
    )
  })
})
