import t from 'tap'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// Spec Relations rule 6: get_<path>_<rel> for belongsTo/hasOne, list_<path>_<rel> for hasMany,
// with the relation rules of `__include` (tenant re-applied, no tombstones, target field ACL).

t.test('relation tools and include round-trip', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const acme = await ok(client, 'create_companies', { record: { name: 'Acme', industry: 'software' } })
  const lone = await ok(client, 'create_companies', { record: { name: 'Lone' } })
  const names = ['Cy', 'Ann', 'Bo', 'Di']
  const made: Record<string, any> = {}
  for (const [i, firstName] of names.entries()) {
    made[firstName] = await ok(client, 'create_contacts', {
      record: { firstName, lastName: 'X', companyId: acme._id, score: i * 10, primary: firstName === 'Bo' }
    })
  }
  {
    const page = await ok(client, 'list_companies_contacts', { id: acme._id, sort: 'firstName:asc', perPage: 3 })
    t.same(
      page.results.map((r: any) => r.firstName),
      ['Ann', 'Bo', 'Cy'],
      'sorted, first page'
    )
    t.match(page, { totalResults: 4, totalPages: 2, nextPage: 2, truncated: false })
    const next = await ok(client, 'list_companies_contacts', {
      id: acme._id,
      sort: 'firstName:asc',
      perPage: 3,
      page: 2
    })
    t.same(
      next.results.map((r: any) => r.firstName),
      ['Di'],
      'second page'
    )
  }
  {
    const page = await ok(client, 'list_companies_contacts', { id: acme._id, filter: { score: { $gte: 20 } } })
    t.same(page.results.map((r: any) => r.firstName).sort(), ['Bo', 'Di'], 'filtered on target fields')
  }
  t.match(
    await fails(client, 'list_companies_contacts', { id: acme._id, filter: { nope: 1 } }),
    { code: 'VALIDATION', details: { field: 'filter.nope' } },
    'the target filter schema refuses unknown fields'
  )
  t.same((await ok(client, 'list_companies_contacts', { id: lone._id })).results, [], 'no children')
  {
    const { record } = await ok(client, 'get_contacts_company', { id: made.Ann._id })
    t.match(record, { _id: acme._id, name: 'Acme' }, 'belongsTo')
    t.same(
      await ok(client, 'get_companies_primaryContact', { id: acme._id }),
      { record: { ...made.Bo } },
      "hasOne with the relation's where"
    )
    t.same(
      await ok(client, 'get_companies_primaryContact', { id: lone._id }),
      { record: null },
      'null when there is none'
    )
  }
  {
    const withIncludes = await ok(client, 'get_companies', { id: acme._id, include: ['contacts', 'primaryContact'] })
    t.equal(withIncludes.contacts.length, 4, 'include on get')
    t.equal(withIncludes.primaryContact._id, made.Bo._id)
    const list = await ok(client, 'list_contacts', { include: ['company'], filter: { firstName: 'Ann' } })
    t.equal(list.results[0].company.name, 'Acme', 'include on list')
    t.match(
      await fails(client, 'get_companies', { id: acme._id, include: ['nope'] }),
      { code: 'VALIDATION', details: { field: 'include.0' } },
      'an unknown relation'
    )
  }
  // A deleted child disappears from the relation; a deleted parent makes it NOT_FOUND.
  await ok(client, 'delete_contacts', { id: made.Di._id })
  t.equal(
    (await ok(client, 'list_companies_contacts', { id: acme._id })).totalResults,
    3,
    'tombstones are never related'
  )
  await ok(client, 'delete_companies', { id: acme._id })
  t.match(await fails(client, 'list_companies_contacts', { id: acme._id }), { code: 'NOT_FOUND' }, 'a deleted parent')
  t.same(await ok(client, 'get_contacts_company', { id: made.Ann._id }), { record: null }, 'a deleted target is null')
})

t.test("the target's field ACL applies to related records", async (t) => {
  const { url } = await buildApp(t)
  const manager = makeUser({ roles: ['manager', 'admin'] })
  const boss = await connect(t, url, manager.headers)
  const clerk = await connect(t, url, makeUser({ user_id: manager.userId }).headers)
  const co = await ok(boss, 'create_companies', { record: { name: 'Acme', revenue: 5 } })
  const ann = await ok(boss, 'create_contacts', {
    record: { firstName: 'Ann', lastName: 'L', notes: 'n', companyId: co._id }
  })
  t.notOk(
    'notes' in (await ok(clerk, 'list_companies_contacts', { id: co._id })).results[0],
    'hidden on a relation list'
  )
  t.notOk('revenue' in (await ok(clerk, 'get_contacts_company', { id: ann._id })).record, 'hidden on a relation record')
  t.equal((await ok(boss, 'get_contacts_company', { id: ann._id })).record.revenue, 5, 'shown to its roles')
})
