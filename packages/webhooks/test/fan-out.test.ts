import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Db } from 'mongodb'
import { buildApp, eventually, makeUser, schemas, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

const rxOperator = await startReceiver(t, '/operator')
// contacts declares an operator endpoint for created events (bare action names mean this schema's).
const { app, db } = await buildApp(t, { schemas: schemas({ webhooks: { events: ['created'], endpoints: [{ url: rxOperator.url, secret: 'operator-secret' }] } }) })
const alice = makeUser({ roles: ['user'] })
const hr = makeUser({ roles: ['hr'] })
const bob = makeUser()

/** An outbox row as the durable write mechanism stores it. */
async function outboxEvent (db: Db, type: string, userId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = randomUUID()
  const [path] = type.split('.')
  const now = new Date()
  await db.collection('webhook_outbox').insertOne({ _id: id as any, id, type, version: 'v1', path, userId, createdAt: now, dueAt: now, ...extra })
  return id
}

const record = (userId: string): Record<string, unknown> => ({ _id: '65f0000000000000000000aa', userId, name: 'Ada', salary: 100, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })

t.test('patterns: exact, <path>.*, *; each subscription only sees its tenant', async (t) => {
  const rxExact = await startReceiver(t)
  const rxPath = await startReceiver(t)
  const rxAll = await startReceiver(t)
  const rxBob = await startReceiver(t)
  await subscribe(app, alice, rxExact.url, ['contacts.updated'])
  await subscribe(app, alice, rxPath.url, ['logs.*'])
  await subscribe(app, alice, rxAll.url, ['*'])
  await subscribe(app, bob, rxBob.url, ['*'])
  await outboxEvent(db, 'contacts.updated', alice.userId, { recordId: 'r1', record: record(alice.userId) })
  await outboxEvent(db, 'logs.deleted', alice.userId, { recordId: 'r2', record: { _id: 'r2', userId: alice.userId, line: 'x' } })
  await outboxEvent(db, 'contacts.transitioned', alice.userId, { recordId: 'r1', record: record(alice.userId) })
  await rxAll.waitFor(3)
  await rxExact.waitFor(1)
  await rxPath.waitFor(1)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.same(rxExact.received.map((r) => r.body.type), ['contacts.updated'], 'exact type')
  t.same(rxPath.received.map((r) => r.body.type), ['logs.deleted'], 'resource wildcard')
  t.same(rxAll.received.map((r) => r.body.type).sort(), ['contacts.transitioned', 'contacts.updated', 'logs.deleted'], 'everything of the tenant')
  t.equal(rxBob.received.length, 0, "another tenant's subscription sees nothing")
  t.equal(rxOperator.received.length, 0, 'the declared endpoint wants created only')
  t.equal(await db.collection('webhook_outbox').countDocuments(), 0, 'fanned-out events leave the outbox')
})

t.test('single-record body, projected through the subscriber field ACL', async (t) => {
  const rxUser = await startReceiver(t)
  const rxHr = await startReceiver(t)
  const shared = '65f0000000000000000000ff'
  const userSub = await subscribe(app, makeUser({ user_id: shared }), rxUser.url, ['contacts.created'])
  await subscribe(app, makeUser({ user_id: shared, roles: ['hr'] }), rxHr.url, ['contacts.created'])
  const id = await outboxEvent(db, 'contacts.created', shared, { recordId: 'r9', record: record(shared) })
  const [u] = await rxUser.waitFor(1)
  const [h] = await rxHr.waitFor(1)
  t.same(Object.keys(u.body).sort(), ['deliveredAt', 'id', 'record', 'recordId', 'type', 'userId', 'version'], 'spec single-record body')
  t.match(u.body, { id, type: 'contacts.created', version: 'v1', userId: shared, recordId: 'r9', record: { name: 'Ada' } })
  t.equal(u.body.record.salary, undefined, 'salary hidden from a subscriber without hr')
  t.equal(h.body.record.salary, 100, 'visible to an hr subscriber')
  t.equal(u.body.id, h.body.id, 'one event id for every subscription')
  t.not(u.headers['x-svc-delivery'], h.headers['x-svc-delivery'], 'a delivery id per subscription')
  t.ok(userSub._id)
  const [op] = await rxOperator.waitFor(1)
  t.equal(op.body.record.salary, 100, 'the operator endpoint gets the whole record')
  t.equal(op.headers['x-svc-event'], 'contacts.created')
})

t.test('bulk body carries filter and numAffected, no record', async (t) => {
  const rx = await startReceiver(t)
  const u = makeUser()
  await subscribe(app, u, rx.url, ['contacts.updated'])
  await outboxEvent(db, 'contacts.updated', u.userId, { filter: { userId: u.userId, name: 'Ada' }, numAffected: 3 })
  const [got] = await rx.waitFor(1)
  t.same(Object.keys(got.body).sort(), ['deliveredAt', 'filter', 'id', 'numAffected', 'type', 'userId', 'version'], 'spec bulk body')
  t.match(got.body, { numAffected: 3, filter: { name: 'Ada' } })
})

t.test('a replayed event (same id) after a partial fan-out delivers nothing twice', async (t) => {
  const rx = await startReceiver(t)
  const u = makeUser()
  const sub = await subscribe(app, u, rx.url, ['logs.created'])
  const id = await outboxEvent(db, 'logs.created', u.userId, { recordId: 'x', record: { _id: 'x', userId: u.userId } })
  await rx.waitFor(1)
  await eventually(async () => (await db.collection('webhook_outbox').countDocuments({ _id: id as any })) === 0)
  await outboxEvent(db, 'logs.created', u.userId, { _id: id, id, recordId: 'x', record: { _id: 'x', userId: u.userId } })
  await eventually(async () => (await db.collection('webhook_outbox').countDocuments({ _id: id as any })) === 0)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(rx.received.length, 1, 'the job of that event and subscription exists once')
  t.equal(await db.collection('webhook_jobs').countDocuments({ subscriptionId: sub._id }), 1)
})

t.test('deleted or disabled subscriptions drop their pending jobs', async (t) => {
  const rx = await startReceiver(t)
  const u = makeUser()
  const sub = await subscribe(app, u, rx.url, ['logs.*'])
  await app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${sub._id}`, headers: u.headers, payload: { active: false } })
  await db.collection('webhook_jobs').insertOne({ _id: `e:${sub._id}` as any, deliveryId: randomUUID(), subscriptionId: sub._id, event: { id: 'e', type: 'logs.created', version: 'v1', userId: u.userId }, attempt: 0, state: 'pending', dueAt: new Date(), createdAt: new Date() })
  const job = await eventually(async () => { const j = await db.collection('webhook_jobs').findOne({ _id: `e:${sub._id}` as any }); return j?.state === 'dropped' && j })
  t.equal(job.attempt, 0)
  t.equal(rx.received.length, 0)
})

t.test('declared endpoints are kept in step with the schema at boot', async (t) => {
  const rows = await db.collection('webhook_subscriptions').find({ declaredBy: 'v1/contacts' }).toArray()
  t.equal(rows.length, 1)
  t.match(rows[0], { _id: 'declared:v1/contacts:0', userId: null, events: ['contacts.created'], url: rxOperator.url, active: true })
  // A second app on the same database whose schema declares nothing removes the row.
  await buildApp(t, { db })
  t.equal(await db.collection('webhook_subscriptions').countDocuments({ declaredBy: 'v1/contacts' }), 0)
  const list = await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: hr.headers })
  t.equal(list.json().totalResults, 0, 'declared endpoints are not any tenant\'s subscriptions')
})
