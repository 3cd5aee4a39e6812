import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, call, makeUser, stream } from './helper.js'

// CONTRACT "Realtime" scope: the caller's tenant only; acl.list roles see every tenant's events
// of that schema; api clients what their scope can read; records through the subscriber's ACL.

t.test("a stream carries its own tenant's events only", async (t) => {
  const b = await buildApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const a = await stream(t, b, alice.headers)
  const bb = await stream(t, b, bob.headers)
  await call(b.app, 'POST', '/api/v1/contacts', bob.headers, { name: 'bob-1' })
  await call(b.app, 'PUT', '/api/v1/logs', bob.headers, { filter: { line: 'secret-filter' }, record: { line: 'z' } })
  await call(b.app, 'POST', '/api/v1/contacts', alice.headers, { name: 'alice-1' })
  await a.waitFor(1)
  await bb.waitFor(3)
  t.same(
    a.events().map((e) => e.data.record.name),
    ['alice-1'],
    "alice never sees bob's records or bulk filters"
  )
  t.ok(bb.events().every((e) => e.data.userId === bob.userId))
})

t.test("field ACL is the subscriber's: one write, two readers, two projections", async (t) => {
  const b = await buildApp(t)
  const owner = makeUser()
  const hr = makeUser({ user_id: owner.userId, roles: ['user', 'hr'] })
  const plain = await stream(t, b, owner.headers, 'types=contacts.*')
  const withHr = await stream(t, b, hr.headers, 'types=contacts.*')
  await call(b.app, 'POST', '/api/v1/contacts', hr.headers, { name: 'Grace', salary: 100 })
  await call(b.app, 'PUT', '/api/v1/contacts', hr.headers, {
    filter: { salary: { $gt: 50 }, name: 'Grace' },
    record: { published: true }
  })
  const [p] = await plain.waitFor(2)
  const [h] = await withHr.waitFor(2)
  t.equal(h.data.record.salary, 100, 'hr reads salary')
  t.notOk('salary' in p.data.record, 'a reader without hr does not get salary')
  t.equal(p.data.id, h.data.id, 'the same event')
  t.same(plain.events()[1].data.filter, { name: 'Grace' }, 'a bulk filter names only fields the reader may read')
  t.same(withHr.events()[1].data.filter, { salary: { $gt: 50 }, name: 'Grace' })
})

t.test("acl.list roles see every tenant's events of that schema, as their list does", async (t) => {
  const b = await buildApp(t)
  const admin = makeUser({ roles: ['user', 'admin'] })
  const orgAdmin = makeUser({ roles: ['user', 'admin'], account_id: 'org-1' })
  const alice = makeUser({ account_id: 'org-1' })
  const bob = makeUser({ account_id: 'org-2' })
  const all = await stream(t, b, admin.headers)
  const org = await stream(t, b, orgAdmin.headers)
  await call(b.app, 'POST', '/api/v1/contacts', alice.headers, { name: 'alice' })
  await call(b.app, 'POST', '/api/v1/contacts', bob.headers, { name: 'bob' })
  await call(b.app, 'POST', '/api/v1/logs', alice.headers, { line: 'alice log' })
  await call(b.app, 'POST', '/api/v1/logs', admin.headers, { line: 'admin log' })
  await all.waitFor(3)
  await org.waitFor(1)
  t.same(
    all.events().map((e) => e.data.record.name ?? e.data.record.line),
    ['alice', 'bob', 'admin log'],
    'contacts of every tenant, logs of its own'
  )
  const list = await call(b.app, 'GET', '/api/v1/contacts', orgAdmin.headers)
  t.same(
    list.results.map((r: any) => r.name),
    ['alice'],
    "the org admin's list"
  )
  t.same(
    org.events().map((e) => e.data.record.name),
    ['alice'],
    "the org admin's feed: its organisation only"
  )
})

t.test('api clients receive what their scope can read', async (t) => {
  const b = await buildApp(t)
  const clients = new ApiClientStore(b.app.svc.db)
  const alice = makeUser()
  const bob = makeUser()
  const market = { 'x-client-id': (await clients.create({ role: 'storefront' }))._id }
  const shop = { 'x-client-id': (await clients.create({ role: 'storefront', ownerId: alice.userId }))._id }
  const m = await stream(t, b, market)
  const s = await stream(t, b, shop)
  const alicePublic = await call(b.app, 'POST', '/api/v1/contacts', alice.headers, {
    name: 'alice public',
    published: true,
    salary: 9
  })
  await call(b.app, 'POST', '/api/v1/contacts', alice.headers, { name: 'alice private' })
  await call(b.app, 'POST', '/api/v1/contacts', bob.headers, { name: 'bob public', published: true })
  await call(b.app, 'POST', '/api/v1/logs', alice.headers, { line: 'no scope for logs' })
  await call(b.app, 'PUT', '/api/v1/contacts', alice.headers, {
    filter: { name: 'alice public' },
    record: { published: true }
  })
  await call(b.app, 'PUT', `/api/v1/contacts/${alicePublic._id as string}`, alice.headers, { published: false })
  // The last write: once it arrived, everything before it was decided.
  await call(b.app, 'POST', '/api/v1/contacts', alice.headers, { name: 'sentinel', published: true })
  await m.waitFor(3)
  await s.waitFor(2)
  t.same(
    m.events().map((e) => e.data.record.name),
    ['alice public', 'bob public', 'sentinel'],
    'an operator client: published records of every tenant'
  )
  t.same(
    s.events().map((e) => e.data.record.name),
    ['alice public', 'sentinel'],
    "an owned client: its owner's published records, no bulk event, not the record once unpublished"
  )
  t.notOk('salary' in m.events()[0].data.record, "field ACL applies to the client's role")
  const closed = await stream(t, b, market, 'types=logs.*')
  t.equal(closed.status, 403, 'a schema without a scope for the client is closed')
  t.equal(closed.body.error.code, 'FORBIDDEN')
})
