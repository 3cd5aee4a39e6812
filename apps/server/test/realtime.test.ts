import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

const SECRET = 'server-test-secret'
const headers = {
  authorization: `Bearer ${signToken({ user_id: '65f000000000000000000009', email: 'r@example.test', roles: ['user'] }, SECRET)}`
}

async function firstEvent (res: Response): Promise<{ event: string; data: any }> {
  const decoder = new TextDecoder()
  let buf = ''
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true })
    for (const block of buf.split('\n\n')) {
      const event = /^event: (.+)$/m.exec(block)
      const data = /^data: (.+)$/m.exec(block)
      if (event !== null && data !== null) return { event: event[1], data: JSON.parse(data[1]) }
    }
  }
  throw new Error('stream ended')
}

t.test('the reference server serves the live feed with the REALTIME_* settings', async (t) => {
  const ws = workspace()
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: SECRET,
    SCHEMA_DIR: ws.schemaDir,
    REALTIME_MAX_STREAMS_PER_USER: '1',
    REALTIME_HEARTBEAT_SECONDS: '5'
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const ticket = await app.inject({ method: 'POST', url: '/api/v1/_events/tickets', headers })
  t.equal(ticket.statusCode, 200, 'POST /api/v1/_events/tickets')
  const ac = new AbortController()
  t.teardown(() => {
    ac.abort()
  })
  const res = await fetch(`${base}/api/v1/_events?types=notes.*&ticket=${ticket.json().ticket as string}`, {
    signal: ac.signal
  })
  t.equal(res.status, 200)
  t.ok(res.headers.get('x-request-id'), "the reply hooks' headers are kept")
  const second = await fetch(`${base}/api/v1/_events`, { headers })
  t.equal(second.status, 429, 'REALTIME_MAX_STREAMS_PER_USER=1')
  t.equal((await second.json()).error.code, 'RATE_LIMITED')
  const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { title: 'live' } })
  const got = await firstEvent(res)
  t.equal(got.event, 'notes.created')
  t.equal(got.data.recordId, created.json()._id)
  const m = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  t.match(m.realtime, {
    stream: { method: 'GET', path: '/api/v1/_events' },
    tickets: { method: 'POST', path: '/api/v1/_events/tickets' },
    retentionHours: 24,
    heartbeatSeconds: 5,
    maxStreamsPerUser: 1
  })
  t.same(m.schemas[0].endpoints.realtime, {
    events: ['notes.created', 'notes.updated', 'notes.deleted'],
    stream: '/api/v1/_events?types=notes.*'
  })
  const doc = (await app.inject({ method: 'GET', url: '/api-docs/swagger.json' })).json()
  t.ok(doc.paths['/api/v1/_events']?.get, 'the stream is in the API document')
  t.same(doc.paths['/api/v1/_events'].get.produces, ['text/event-stream'])
  t.ok(doc.paths['/api/v1/_events/tickets']?.post, 'and the tickets route')
  const openapi = (await app.inject({ method: 'GET', url: '/api-docs/openapi.json' })).json()
  t.same(
    Object.keys(openapi.paths['/api/v1/_events']?.get?.responses?.['200']?.content ?? {}),
    ['text/event-stream'],
    'the OpenAPI 3.1 document has the stream, as text/event-stream'
  )
  t.ok(openapi.paths['/api/v1/_events/tickets']?.post, 'and the tickets route')
})
