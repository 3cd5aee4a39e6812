import t from 'tap'
import { buildApp, call, makeUser, schemas, sleep, stream } from './helper.js'

// CONTRACT "Realtime" event row, for every kind of write: the record (and a bulk filter) is
// projected through the subscriber's read ACL at delivery — deletes, tombstones, transitions and
// bulk events included — and no event reaches a stream of another tenant, even one whose roles
// could read the hidden fields.

// A hard-delete schema with a field only `hr` reads: its `deleted` event carries the record as it was.
const VAULT = {
  path: 'vault',
  softDelete: false,
  fields: [
    { name: 'label', type: String },
    { name: 'code', type: String, acl: { read: ['hr'] } }
  ]
}

t.test("every kind of event: the subscriber's read ACL, its tenant only", async (t) => {
  const b = await buildApp(t, { schemas: [...schemas(), VAULT] })
  const owner = makeUser()
  const hr = makeUser({ user_id: owner.userId, roles: ['user', 'hr'] })
  // Another tenant holding the very role that may read the hidden fields.
  const mallory = makeUser({ roles: ['user', 'hr'] })
  const plain = await stream(t, b, owner.headers)
  const withHr = await stream(t, b, hr.headers)
  const other = await stream(t, b, mallory.headers)
  const ctx = {
    identity: { kind: 'user' as const, userId: owner.userId, roles: ['user', 'hr'] },
    surface: 'graphql' as const
  }

  const c = await call(b.app, 'POST', '/api/v1/contacts', hr.headers, { name: 'Grace', salary: 100 })
  await call(b.app, 'PUT', `/api/v1/contacts/${c._id as string}`, hr.headers, { stage: 'won', salary: 120 })
  await call(b.app, 'DELETE', `/api/v1/contacts/${c._id as string}`, hr.headers)
  await call(b.app, 'POST', `/api/v1/contacts/${c._id as string}/restore`, hr.headers)
  await call(b.app, 'PUT', '/api/v1/contacts', hr.headers, {
    filter: { salary: { $gte: 100 } },
    record: { published: true }
  })
  t.same(await b.app.svc.services.get('contacts').deleteMany(ctx, { salary: { $gte: 100 } }), { numAffected: 1 })
  const v = await call(b.app, 'POST', '/api/v1/vault', hr.headers, { label: 'door', code: 'c0de-7' })
  await call(b.app, 'DELETE', `/api/v1/vault/${v._id as string}`, hr.headers)
  // Mallory's own write, last: once it arrived on her stream, every write before it was decided.
  await call(b.app, 'POST', '/api/v1/logs', mallory.headers, { line: 'sentinel' })

  const types = [
    'contacts.created',
    'contacts.updated',
    'contacts.transitioned',
    'contacts.deleted',
    'contacts.updated',
    'contacts.updated',
    'contacts.deleted',
    'vault.created',
    'vault.deleted'
  ]
  const p = await plain.waitFor(types.length)
  const h = await withHr.waitFor(types.length)
  await other.waitFor(1)
  await sleep(200)
  t.same(
    p.map((e) => e.event),
    types,
    'the reader without hr gets every event'
  )
  t.same(
    h.map((e) => e.event),
    types,
    'so does the one with hr'
  )
  t.same(
    p.map((e) => e.data.id),
    h.map((e) => e.data.id),
    'the same events'
  )

  t.notMatch(
    JSON.stringify(p.map((e) => e.data)),
    /salary|"code"|c0de/,
    'no event, record, tombstone or bulk filter of the reader without hr names a hidden field or its value'
  )
  t.equal(h[0].data.record.salary, 100, 'created: hr reads salary')
  t.equal(h[2].data.record.salary, 120, 'transitioned: hr reads salary')
  t.match(h[3].data.record, { salary: 120, deletedAt: String }, 'the tombstone, for hr')
  t.match(p[3].data.record, { name: 'Grace', deletedAt: String }, 'the tombstone, without salary')
  t.equal(p[2].data.record.stage, 'won', 'the transition, without salary')
  t.same(h[5].data.filter, { salary: { $gte: 100 } }, "a bulk update's filter, for hr")
  t.same(p[5].data.filter, {}, 'the same filter, without salary')
  t.match(h[6].data, { filter: { salary: { $gte: 100 } }, numAffected: 1 }, "a bulk delete's, for hr")
  t.match(p[6].data, { filter: {}, numAffected: 1 }, 'and without salary')
  t.match(h[8].data.record, { label: 'door', code: 'c0de-7' }, 'a hard delete: the record as it was, for hr')
  t.equal(p[8].data.record.label, 'door', 'and without the code')

  t.same(
    other.events().map((e) => [e.event, e.data.record?.line]),
    [['logs.created', 'sentinel']],
    "another tenant's stream, with the same privileged role, got none of it"
  )
})
