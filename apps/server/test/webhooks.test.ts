import t from 'tap'
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

const SECRET = 'server-test-secret'
const headers = {
  authorization: `Bearer ${signToken({ user_id: '65f000000000000000000007', email: 'w@example.test', roles: ['user'] }, SECRET)}`
}

async function receiver (
  t: { teardown: (fn: () => unknown) => void },
  status: () => number
): Promise<{ url: string; got: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> }> {
  const got: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({ headers: req.headers, raw: Buffer.concat(chunks) })
      res.writeHead(status()).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

async function until (check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25))
}

t.test(
  'the reference server serves webhooks and retries on WEBHOOK_RETRY_SCHEDULE (NODE_ENV=test allows local receivers)',
  async (t) => {
    const ws = workspace()
    const { config } = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: SECRET,
      SCHEMA_DIR: ws.schemaDir,
      WEBHOOK_RETRY_SCHEDULE: '0.2'
    })
    if (config == null) throw new Error('test config invalid')
    const { db } = await getTestDb(t)
    const app = await buildServer(config, { db, logger: false })
    t.teardown(async () => await app.close())
    let calls = 0
    const rx = await receiver(t, () => (++calls === 1 ? 500 : 200))
    const sub = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers,
      payload: { events: ['notes.created'], url: rx.url }
    })
    t.equal(sub.statusCode, 201, 'POST /api/v1/webhooks')
    const test = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.json()._id as string}/test`, headers })
    t.equal(test.statusCode, 202, 'POST /api/v1/webhooks/:id/test')
    await until(() => rx.got.length >= 2)
    t.equal(rx.got.length, 2, 'failed once, retried once')
    const [first, second] = rx.got
    t.ok(second.headers['x-svc-delivery'] === first.headers['x-svc-delivery'], 'same delivery id')
    const sig = `sha256=${createHmac('sha256', sub.json().secret).update(second.raw).digest('hex')}`
    t.equal(second.headers['x-svc-signature'], sig, 'signed with the subscription secret')
    t.match(JSON.parse(second.raw.toString()), { type: 'webhook.test', subscriptionId: sub.json()._id })

    const note = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { title: 'hello' } })
    t.equal(note.statusCode, 201, 'a record write')
    await until(() => rx.got.length >= 3)
    t.match(
      JSON.parse(rx.got[2].raw.toString()),
      { type: 'notes.created', recordId: note.json()._id, record: { title: 'hello' } },
      'its event is delivered'
    )
  }
)

t.test('outside NODE_ENV=test a private receiver is refused', async (t) => {
  const ws = workspace()
  const { config } = loadConfig({ NODE_ENV: 'development', JWT_SECRET: SECRET, SCHEMA_DIR: ws.schemaDir })
  if (config == null) throw new Error('config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers,
    payload: { events: ['*'], url: 'http://127.0.0.1:9/hook' }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json().error, { code: 'VALIDATION', details: { reason: 'PRIVATE_ADDRESS' } })
})
