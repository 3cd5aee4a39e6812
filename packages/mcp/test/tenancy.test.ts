import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// MCP twins of the REST tenancy and field-ACL rules: another tenant's bearer sees nothing, on
// every tool kind; hidden fields are stripped, refused on write and unknown to filters.

t.test("another tenant's bearer sees and changes nothing", async (t) => {
  const { url } = await buildApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const mallory = await connect(t, url, makeUser().headers)
  const co = await ok(alice, 'create_companies', { record: { name: 'Acme' } })
  const ann = await ok(alice, 'create_contacts', {
    record: { firstName: 'Ann', lastName: 'Lee', companyId: co._id, primary: true }
  })
  const deal = await ok(alice, 'create_deals', { record: { title: 'Pilot', amount: 100 } })
  const deleted = await ok(alice, 'create_contacts', { record: { firstName: 'Del', lastName: 'Eted' } })
  await ok(alice, 'delete_contacts', { id: deleted._id })

  for (const name of ['list_companies', 'list_contacts', 'list_deals']) {
    t.equal((await ok(mallory, name, { includeDeleted: true })).totalResults, 0, `${name} is empty for Mallory`)
  }
  t.equal((await ok(mallory, 'search_contacts', { q: 'Ann' })).totalResults, 0, 'search finds nothing')
  const notFound = { code: 'NOT_FOUND' }
  t.match(await fails(mallory, 'get_contacts', { id: ann._id }), notFound, 'get')
  t.match(
    await fails(mallory, 'get_contacts', { id: deleted._id, includeDeleted: true }),
    notFound,
    'get with includeDeleted'
  )
  t.match(await fails(mallory, 'update_contacts', { id: ann._id, record: { firstName: 'Pwned' } }), notFound, 'update')
  t.match(
    await fails(mallory, 'update_deals', { id: deal._id, record: { approval: 'submitted' } }),
    notFound,
    'a transition'
  )
  t.match(await fails(mallory, 'delete_contacts', { id: ann._id }), notFound, 'delete')
  t.match(await fails(mallory, 'restore_contacts', { id: deleted._id }), notFound, 'restore')
  t.match(await fails(mallory, 'history_contacts', { id: ann._id }), notFound, 'history')
  t.match(
    await fails(mallory, 'list_companies_contacts', { id: co._id }),
    notFound,
    'a relation list of a foreign parent'
  )
  t.match(
    await fails(mallory, 'get_contacts_company', { id: ann._id }),
    notFound,
    'a relation record of a foreign parent'
  )
  t.same((await ok(mallory, 'aggregate_deals_byStage')).results, [], "aggregations count Mallory's records only")

  // Mallory points her own contact at Alice's company: the relation still stays in her tenant.
  const forged = await ok(mallory, 'create_contacts', { record: { firstName: 'F', lastName: 'G', companyId: co._id } })
  t.same(
    await ok(mallory, 'get_contacts_company', { id: forged._id }),
    { record: null },
    "a forged fk never reaches Alice's company"
  )
  const list = await ok(alice, 'list_companies_contacts', { id: co._id })
  t.same(
    list.results.map((r: any) => r._id),
    [ann._id],
    "nor does Alice see Mallory's forged contact"
  )

  t.equal((await ok(alice, 'get_contacts', { id: ann._id })).firstName, 'Ann', "Alice's record is untouched")
  t.same((await ok(alice, 'aggregate_deals_byStage')).results, [{ _id: 'open', count: 1, total: 100 }])
})

t.test('acl.list roles list every tenant, but stay in their tenant elsewhere', async (t) => {
  const { url } = await buildApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const admin = await connect(t, url, makeUser({ roles: ['admin'] }).headers)
  const deal = await ok(alice, 'create_deals', { record: { title: 'Pilot', amount: 100 } })
  t.equal((await ok(admin, 'list_deals')).totalResults, 1, 'list_deals shows other tenants to admin (acl.list)')
  t.match(
    await fails(admin, 'update_deals', { id: deal._id, record: { title: 'x' } }),
    { code: 'NOT_FOUND' },
    'but not writes'
  )
  t.same((await ok(admin, 'aggregate_deals_total')).results, [], 'aggregations always prepend the caller tenant')
  t.match(
    await fails(alice, 'aggregate_deals_total'),
    { code: 'FORBIDDEN' },
    'an unsafe aggregation called by a plain user'
  )
})

t.test('field ACL: stripped on reads, refused on writes, unknown to filters', async (t) => {
  const { url } = await buildApp(t)
  const managerUser = makeUser({ roles: ['manager'] })
  const manager = await connect(t, url, managerUser.headers)
  // Same tenant, without the manager role.
  const clerk = await connect(t, url, makeUser({ user_id: managerUser.userId, roles: ['user'] }).headers)
  const ann = await ok(manager, 'create_contacts', { record: { firstName: 'Ann', lastName: 'Lee', notes: 'secret' } })
  t.equal(ann.notes, 'secret', 'the manager reads notes')
  t.notOk('notes' in (await ok(clerk, 'get_contacts', { id: ann._id })), 'get strips notes')
  t.notOk(
    (await ok(clerk, 'list_contacts')).results.some((r: any) => 'notes' in r),
    'list strips notes'
  )
  t.notOk(
    'notes' in (await ok(clerk, 'update_contacts', { id: ann._id, record: { score: 1 } })),
    'a write answer strips notes'
  )
  const history = await ok(clerk, 'history_contacts', { id: ann._id })
  t.notOk(
    history.results.some((h: any) => 'notes' in (h.after ?? {}) || 'notes' in (h.before ?? {}) || 'notes' in h.diff),
    'history strips notes'
  )
  t.match(
    await fails(clerk, 'update_contacts', { id: ann._id, record: { notes: 'x' } }),
    { code: 'FORBIDDEN', details: { field: 'notes' } },
    'writing notes'
  )
  t.match(
    await fails(clerk, 'create_contacts', { record: { firstName: 'B', lastName: 'C', notes: 'x' } }),
    { code: 'FORBIDDEN', details: { field: 'notes' } },
    'creating with notes'
  )
  t.match(
    await fails(clerk, 'list_contacts', { filter: { notes: 'secret' } }),
    { code: 'VALIDATION', message: "unknown field 'notes'" },
    'filtering on notes'
  )
  t.match(await fails(clerk, 'list_contacts', { sort: 'notes:asc' }), { code: 'VALIDATION' }, 'sorting on notes')
  t.equal((await ok(manager, 'get_contacts', { id: ann._id })).notes, 'secret', 'nothing changed')
})

t.test('an api client reads the public scope only', async (t) => {
  const { app, url } = await buildApp(t)
  const clientDoc = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  const owner = await connect(t, url, makeUser().headers)
  const visible = await ok(owner, 'create_products', { record: { name: 'Shown', published: true } })
  const hidden = await ok(owner, 'create_products', { record: { name: 'Draft' } })
  const anon = await connect(t, url, { 'x-client-id': clientDoc._id })
  t.same(
    (await ok(anon, 'list_products')).results.map((r: any) => r.name),
    ['Shown'],
    'only published products'
  )
  t.equal((await ok(anon, 'get_products', { id: visible._id })).name, 'Shown')
  t.match(
    await fails(anon, 'get_products', { id: hidden._id }),
    { code: 'NOT_FOUND' },
    'an unpublished one is not found'
  )
  t.match(
    await fails(anon, 'update_products', { id: visible._id, record: { name: 'x' } }),
    { code: 'FORBIDDEN' },
    'writes are refused'
  )
  t.match(await fails(anon, 'delete_products', { id: visible._id }), { code: 'FORBIDDEN' })
  t.match(
    await fails(anon, 'history_products', { id: visible._id }),
    { code: 'FORBIDDEN' },
    'history needs a user, as on REST'
  )
  const { resources } = await ok(anon, 'list_resources')
  t.same(
    resources.map((r: any) => [r.path, r.tools]),
    [['products', ['list_products', 'get_products']]],
    'list_resources shows what the client can reach'
  )
})
