import t from 'tap'
import { buildApp, call, makeUser, stream } from './helper.js'

// CONTRACT "Realtime": the event message, every kind of record event, order and cursors.

t.test('every kind of record event, in order, with the contract shape', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const conn = await stream(t, b, u.headers)
  t.equal(conn.status, 200)
  t.match(conn.headers.get('content-type'), /^text\/event-stream/)
  const c = await call(b.app, 'POST', '/api/v1/contacts', u.headers, { name: 'Ada' })
  await call(b.app, 'PUT', `/api/v1/contacts/${c._id}`, u.headers, { name: 'Ada L.' })
  await call(b.app, 'PUT', `/api/v1/contacts/${c._id}`, u.headers, { stage: 'won' })
  await call(b.app, 'DELETE', `/api/v1/contacts/${c._id}`, u.headers)
  await call(b.app, 'POST', `/api/v1/contacts/${c._id}/restore`, u.headers)
  await call(b.app, 'PUT', '/api/v1/logs', u.headers, { filter: { line: 'x' }, record: { line: 'y' } })
  const events = await conn.waitFor(8)
  t.same(
    events.map((e) => e.event),
    [
      'contacts.created',
      'contacts.updated',
      'contacts.updated',
      'contacts.transitioned',
      'contacts.deleted',
      'contacts.updated',
      'logs.created',
      'logs.updated'
    ],
    'a PUT moving the state is `updated` then `transitioned`; restore is `updated`; an upserting bulk PUT is `created` + the bulk `updated`'
  )
  for (const e of events) {
    t.equal(e.data.type, e.event, 'data.type is the event type')
    t.match(e.data, { id: String, version: 'v1', userId: u.userId, at: String })
    t.ok(!Number.isNaN(Date.parse(e.data.at)), 'at is a date')
  }
  const ids = events.map((e) => e.id as string)
  t.equal(new Set(ids).size, ids.length, 'one cursor per event')
  t.equal(new Set(events.map((e) => e.data.id)).size, events.length, 'one event id per event')
  const [created, , , transitioned, deleted, restored] = events
  t.same(Object.keys(created.data).sort(), ['at', 'id', 'record', 'recordId', 'type', 'userId', 'version'])
  t.equal(created.data.recordId, c._id)
  t.match(
    created.data.record,
    { _id: c._id, name: 'Ada', userId: u.userId, stage: 'lead', availableTransitions: ['won', 'lost'] },
    'the record as a read shows it'
  )
  t.match(transitioned.data.record, { stage: 'won' })
  t.ok(deleted.data.record.deletedAt, 'a soft delete carries the tombstone')
  t.equal(restored.data.record.deletedAt ?? null, null, 'restore is an updated event of the live record')
  const bulk = events[7]
  t.same(
    Object.keys(bulk.data).sort(),
    ['at', 'filter', 'id', 'numAffected', 'type', 'userId', 'version'],
    'the bulk shape'
  )
  t.same(bulk.data.filter, { line: 'x' })
  t.equal(bulk.data.numAffected, 1)
})

t.test('a hard delete carries the record as it was; createMany gives one event per record', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const conn = await stream(t, b, u.headers, 'types=logs.*')
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'graphql' as const }
  const made = await b.app.svc.services.get('logs').createMany(ctx, [{ line: 'a' }, { line: 'b' }])
  await call(b.app, 'DELETE', `/api/v1/logs/${made[0]._id}`, u.headers)
  const events = await conn.waitFor(3)
  t.same(
    events.map((e) => [e.event, e.data.record.line]),
    [
      ['logs.created', 'a'],
      ['logs.created', 'b'],
      ['logs.deleted', 'a']
    ]
  )
  t.not(events[0].data.id, events[1].data.id, 'each record of a batch has its own event id')
})

t.test('types: exact, resource wildcard and several patterns; the default is every event', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const exact = await stream(t, b, u.headers, 'types=contacts.created')
  const wild = await stream(t, b, u.headers, 'types=logs.*')
  const both = await stream(t, b, u.headers, `types=${encodeURIComponent('contacts.deleted, logs.created')}`)
  const all = await stream(t, b, u.headers)
  const c = await call(b.app, 'POST', '/api/v1/contacts', u.headers, { name: 'A' })
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'l' })
  await call(b.app, 'DELETE', `/api/v1/contacts/${c._id}`, u.headers)
  await all.waitFor(3)
  await both.waitFor(2)
  t.same(
    exact.events().map((e) => e.event),
    ['contacts.created']
  )
  t.same(
    wild.events().map((e) => e.event),
    ['logs.created']
  )
  t.same(
    both.events().map((e) => e.event),
    ['logs.created', 'contacts.deleted']
  )
  t.same(
    all.events().map((e) => e.event),
    ['contacts.created', 'logs.created', 'contacts.deleted']
  )
})
