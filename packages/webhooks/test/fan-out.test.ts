import t from 'tap'
import { randomUUID } from 'node:crypto'
import { buildApp, eventually, makeUser, schemas, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

const rxOperator = await startReceiver(t, '/operator')
// contacts declares an operator endpoint for created events (bare action names mean this schema's).
const { app, db } = await buildApp(t, {
  schemas: schemas({
    webhooks: { events: ['created'], endpoints: [{ url: rxOperator.url, secret: 'operator-secret' }] }
  })
})
const hr = makeUser({ roles: ['hr'] })

async function call (
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object
): Promise<any> {
  const res = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

t.test('patterns: exact, <path>.*, *; each subscription only sees its tenant', async (t) => {
  const alice = makeUser()
  const bob = makeUser()
  const rxExact = await startReceiver(t)
  const rxPath = await startReceiver(t)
  const rxAll = await startReceiver(t)
  const rxBob = await startReceiver(t)
  await subscribe(app, alice, rxExact.url, ['contacts.transitioned'])
  await subscribe(app, alice, rxPath.url, ['logs.*'])
  await subscribe(app, alice, rxAll.url, ['*'])
  await subscribe(app, bob, rxBob.url, ['*'])
  const c = await call('POST', '/api/v1/contacts', alice.headers, { name: 'Ada' })
  await call('PUT', `/api/v1/contacts/${c._id as string}`, alice.headers, { stage: 'won' })
  const log = await call('POST', '/api/v1/logs', alice.headers, { line: 'x' })
  await call('DELETE', `/api/v1/logs/${log._id as string}`, alice.headers)
  await rxAll.waitFor(5)
  await rxExact.waitFor(1)
  await rxPath.waitFor(2)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.same(
    rxExact.received.map((r) => r.body.type),
    ['contacts.transitioned'],
    'exact type'
  )
  t.same(rxPath.received.map((r) => r.body.type).sort(), ['logs.created', 'logs.deleted'], 'resource wildcard')
  t.same(
    rxAll.received.map((r) => r.body.type).sort(),
    ['contacts.created', 'contacts.transitioned', 'contacts.updated', 'logs.created', 'logs.deleted'],
    'everything of the tenant'
  )
  t.equal(rxBob.received.length, 0, "another tenant's subscription sees nothing")
  const op = await eventually(async () => rxOperator.received.filter((r) => r.body.recordId === c._id))
  t.same(
    op.map((r) => r.body.type),
    ['contacts.created'],
    'the declared endpoint wants created only'
  )
})

t.test('single-record body, projected through the subscriber field ACL', async (t) => {
  const rxUser = await startReceiver(t)
  const rxHr = await startReceiver(t)
  const shared = '65f0000000000000000000ff'
  const plain = makeUser({ user_id: shared })
  await subscribe(app, plain, rxUser.url, ['contacts.created'])
  await subscribe(app, makeUser({ user_id: shared, roles: ['hr'] }), rxHr.url, ['contacts.created'])
  const c = await call('POST', '/api/v1/contacts', plain.headers, { name: 'Ada', salary: 100 })
  const [u] = await rxUser.waitFor(1)
  const [h] = await rxHr.waitFor(1)
  t.same(
    Object.keys(u.body).sort(),
    ['deliveredAt', 'id', 'record', 'recordId', 'type', 'userId', 'version'],
    'spec single-record body'
  )
  t.match(u.body, { type: 'contacts.created', version: 'v1', userId: shared, recordId: c._id, record: { name: 'Ada' } })
  t.match(u.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'the event id: a UUID')
  t.equal(u.body.salary, undefined)
  t.equal(u.body.record.salary, undefined, 'salary hidden from a subscriber without hr')
  t.equal(h.body.record.salary, 100, 'visible to an hr subscriber')
  t.equal(u.body.id, h.body.id, 'one event id for every subscription')
  t.equal(u.body.id, (await app.svc.eventLog.read(0, 1000)).find((e) => e.recordId === c._id)?.id, "the log's event id")
  t.not(u.headers['x-svc-delivery'], h.headers['x-svc-delivery'], 'a delivery id per subscription')
  const op = await eventually(async () => rxOperator.received.find((r) => r.body.recordId === c._id))
  t.equal(op.body.record.salary, 100, 'the operator endpoint gets the whole record')
  t.equal(op.headers['x-svc-event'], 'contacts.created')
})

t.test('bulk body carries filter and numAffected, no record', async (t) => {
  const rx = await startReceiver(t)
  const u = makeUser()
  for (const name of ['Ada', 'Ada', 'Ada']) await call('POST', '/api/v1/contacts', u.headers, { name })
  await subscribe(app, u, rx.url, ['contacts.updated'])
  await call('PUT', '/api/v1/contacts', u.headers, { filter: { name: 'Ada' }, record: { name: 'Grace' } })
  const [got] = await rx.waitFor(1)
  t.same(
    Object.keys(got.body).sort(),
    ['deliveredAt', 'filter', 'id', 'numAffected', 'type', 'userId', 'version'],
    'spec bulk body'
  )
  t.match(got.body, { numAffected: 3, filter: { name: 'Ada' } })
})

t.test('deleted or disabled subscriptions drop their pending jobs', async (t) => {
  const rx = await startReceiver(t)
  const u = makeUser()
  const sub = await subscribe(app, u, rx.url, ['logs.*'])
  await app.inject({
    method: 'PATCH',
    url: `/api/v1/webhooks/${sub._id}`,
    headers: u.headers,
    payload: { active: false }
  })
  await db.collection('webhook_jobs').insertOne({
    _id: `e:${sub._id}` as any,
    deliveryId: randomUUID(),
    subscriptionId: sub._id,
    event: { id: 'e', type: 'logs.created', version: 'v1', userId: u.userId },
    attempt: 0,
    state: 'pending',
    dueAt: new Date(),
    createdAt: new Date()
  })
  const job = await eventually(async () => {
    const j = await db.collection('webhook_jobs').findOne({ _id: `e:${sub._id}` as any })
    return j?.state === 'dropped' && j
  })
  t.equal(job.attempt, 0)
  t.equal(rx.received.length, 0)
})

t.test('declared endpoints are kept in step with the schema at boot', async (t) => {
  const rows = await db.collection('webhook_subscriptions').find({ declaredBy: 'v1/contacts' }).toArray()
  t.equal(rows.length, 1)
  t.match(rows[0], {
    _id: 'declared:v1/contacts:0',
    userId: null,
    events: ['contacts.created'],
    url: rxOperator.url,
    active: true
  })
  // A second app on the same database whose schema declares nothing removes the row.
  await buildApp(t, { db })
  t.equal(await db.collection('webhook_subscriptions').countDocuments({ declaredBy: 'v1/contacts' }), 0)
  const list = await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: hr.headers })
  t.equal(list.json().totalResults, 0, "declared endpoints are not any tenant's subscriptions")
})
