import t from 'tap'
import { randomUUID } from 'node:crypto'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { loggerOptions } from '../src/logger.js'
import { workspace } from './fixtures/workspace.js'

function testConfig () {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error('test config invalid')
  return config
}

t.test('request ids: a UUID per request, echoed in x-request-id; incoming honoured only when a UUID', async (t) => {
  const { db } = await getTestDb(t)
  const app = await buildServer(testConfig(), { db, logger: false })
  t.teardown(async () => await app.close())

  const a = await app.inject({ method: 'GET', url: '/healthz' })
  const b = await app.inject({ method: 'GET', url: '/healthz' })
  t.match(
    a.headers['x-request-id'],
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    'generated UUID'
  )
  t.not(a.headers['x-request-id'], b.headers['x-request-id'], 'one per request')

  const mine = randomUUID()
  const honoured = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': mine } })
  t.equal(honoured.headers['x-request-id'], mine, 'incoming UUID kept')

  for (const bad of ['abc', `${mine}\n{"forged":true}`, 'x'.repeat(36)]) {
    const res = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } })
    t.not(res.headers['x-request-id'], bad, `non-UUID ${JSON.stringify(bad.slice(0, 10))} replaced`)
    t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  }
  const unknown = await app.inject({ method: 'GET', url: '/nope' })
  t.match(unknown.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'also on 404s')
})

t.test('healthz: 200 with a reachable database and loaded schemas, 503 once the database is gone', async (t) => {
  const { db, client } = await getTestDb(t)
  const app = await buildServer(testConfig(), { db, logger: false })
  t.teardown(async () => await app.close())
  const up = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(up.statusCode, 200, 'GET /healthz')
  t.same(up.json(), { status: 'ok', checks: { database: true, schemas: true } })

  await client.close()
  await new Promise((resolve) => setTimeout(resolve, 1100)) // past the probe's reuse window
  const down = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(down.statusCode, 503, 'GET /healthz without a database')
  t.same(down.json(), {
    error: {
      code: 'SERVICE_UNAVAILABLE',
      message: 'the database does not answer',
      details: { checks: { database: false, schemas: true } }
    }
  })
  await client.connect() // the testkit teardown drops the database through this client
})

t.test('logs: JSON lines with request ids; secrets redacted', async (t) => {
  const { db } = await getTestDb(t)
  const lines: string[] = []
  const logger = {
    ...(loggerOptions({ logLevel: 'info' }) as object),
    stream: {
      write: (l: string) => {
        lines.push(l)
      }
    }
  }
  const app = await buildServer(testConfig(), { db, logger })
  t.teardown(async () => await app.close())

  await app.inject({
    method: 'POST',
    url: '/login',
    headers: { authorization: 'Bearer secret-bearer', cookie: 'sid=secret-cookie' },
    payload: { email: 'a@b.test', password: 'secret-password' }
  })
  app.log.info(
    {
      password: 'p1',
      user: { password: 'p2', token: 't1' },
      body: { token: 't2', refreshToken: 'r1' },
      authorization: 'Bearer b1',
      headers: { authorization: 'Bearer b2', cookie: 'c1' }
    },
    'probe'
  )

  const parsed = lines.map((l) => JSON.parse(l))
  t.ok(parsed.length >= 2, 'one JSON object per line')
  t.ok(
    parsed.filter((l) => l.req != null).every((l) => /^[0-9a-f-]{36}$/.test(l.reqId)),
    'request lines carry the request id'
  )
  const all = lines.join('\n')
  for (const secret of [
    'secret-bearer',
    'secret-cookie',
    'secret-password',
    'p1',
    'p2',
    't1',
    't2',
    'r1',
    'Bearer b1',
    'Bearer b2',
    '"c1"'
  ]) {
    t.notOk(all.includes(secret), `${secret} never logged`)
  }
  t.match(
    parsed.find((l) => l.msg === 'probe'),
    { password: '[redacted]', user: { password: '[redacted]', token: '[redacted]' }, authorization: '[redacted]' }
  )
})
