import t from 'tap'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import { getFailPointTestDb } from '@svc/testkit'
import webhooks from '../src/index.js'
import { JWT_SECRET, eventually, makeUser, schemas, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

// The database fails the worker's own reads and writes (devdb's `failCommand`, as mongod's test
// commands): the worker logs each failure, stays up, and still delivers every event at least once.
const { db } = await getFailPointTestDb(t)
const logged: string[] = []
const stream = new Writable({
  write (chunk, _enc, done) {
    logged.push(String(JSON.parse(String(chunk)).msg))
    done()
  }
})
const app = Fastify({ logger: { level: 'error', stream } })
await app.register(svcCore, {
  db,
  jwtSecret: JWT_SECRET,
  bcryptRounds: 4,
  schemas: schemas(),
  eventLog: { pollMs: 20 }
})
await app.register(softDelete, { sweepIntervalMs: 0 })
await app.register(webhooks, { allowPrivateUrls: true, pollIntervalMs: 20, timeoutMs: 500, leaseMs: 1500 })
t.teardown(async () => await app.close())
await app.ready()
const user = makeUser()

async function failPoint (on: boolean, commands: string[] = []): Promise<void> {
  const mode = on ? 'alwaysOn' : 'off'
  await db.admin().command({ configureFailPoint: 'failCommand', mode, data: { failCommands: commands, errorCode: 2 } })
}

async function loggedOnce (msg: string): Promise<void> {
  await eventually(async () => logged.includes(msg), 10_000)
}

/** A receiver that runs `before` ahead of answering each request 200; the delivery ids it got. */
async function receiver (before: () => Promise<void>): Promise<{ url: string; ids: () => string[] }> {
  const rx = await startReceiver(t)
  rx.respond(async () => {
    await before()
    return 200
  })
  return { url: rx.url, ids: () => rx.received.map((r) => String(r.headers['x-svc-delivery'])) }
}

async function jobStates (database: Db): Promise<string[]> {
  return (await database.collection('webhook_jobs').find({}).toArray()).map((j) => String(j.state))
}

t.test('a failed read of due jobs is logged and the worker keeps scheduling', async (t) => {
  await failPoint(true, ['find'])
  await loggedOnce('webhook delivery scheduling failed')
  await failPoint(false)
  let calls = 0
  const rx = await receiver(async () => {
    calls++
  })
  await subscribe(app, user, rx.url, ['logs.created'])
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/logs',
    headers: user.headers,
    payload: { line: 'after' }
  })
  t.equal(res.statusCode, 201)
  await eventually(async () => calls >= 1)
  t.equal(rx.ids().length, 1, 'the event written after the failure is delivered')
})

t.test('outcomes that cannot be written leave the job leased: it is delivered again, same id', async (t) => {
  await db.collection('webhook_jobs').deleteMany({})
  let first = true
  const rx = await receiver(async () => {
    // The receiver's 200 will be lost: the worker's next insert (the delivery row) fails.
    if (first) {
      first = false
      await failPoint(true, ['insert'])
    }
  })
  await subscribe(app, user, rx.url, ['contacts.created'])
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts',
    headers: user.headers,
    payload: { name: 'Ada' }
  })
  t.equal(res.statusCode, 201)
  await loggedOnce('webhook delivery outcomes not written')
  await failPoint(false)
  await eventually(async () => rx.ids().length >= 2, 10_000)
  t.equal(rx.ids()[1], rx.ids()[0], 'the retry after the lease carries the same delivery id')
  await eventually(async () => (await jobStates(db)).includes('delivered'), 10_000)
  t.same(await jobStates(db), ['delivered'], 'settled once the database answers again')
})
