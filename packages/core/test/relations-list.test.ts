import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { RequestContext } from '../src/index.js'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeRelationSchemas, relationSchemas } from './fixtures/relation-schemas.js'

// service.listRelated: a hasMany relation of one record as its own paged list (MCP list_<path>_<rel>).

async function post (app: FastifyInstance, u: TestUser, path: string, payload: Record<string, unknown>): Promise<any> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: u.headers, payload })
  if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${res.body}`)
  return res.json()
}

function ctx (u: TestUser, roles = ['user']): RequestContext {
  return { identity: { kind: 'user', userId: u.userId, roles }, surface: 'mcp' }
}

t.test('pages, filters and sorts the related records of one parent only', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const alice = makeUser()
  const co = await post(app, alice, 'companies', { name: 'Acme' })
  const other = await post(app, alice, 'companies', { name: 'Other' })
  for (const name of ['Cy', 'Ann', 'Bo']) {
    await post(app, alice, 'contacts', { name, companyId: co._id, primary: name === 'Bo' })
  }
  await post(app, alice, 'contacts', { name: 'Elsewhere', companyId: other._id })
  const companies = app.svc.services.get('companies')
  {
    const page = await companies.listRelated(ctx(alice), co._id, 'contacts', { sort: 'name:asc', perPage: 2 })
    t.same(
      page.results.map((r) => r.name),
      ['Ann', 'Bo'],
      'first page, sorted by the caller'
    )
    t.match(
      page,
      { totalResults: 3, totalPages: 2, nextPage: 2, page: 1, perPage: 2 },
      'the list envelope counts the relation only'
    )
  }
  {
    const page = await companies.listRelated(ctx(alice), co._id, 'contacts', {
      filter: { primary: false },
      sort: 'name:desc'
    })
    t.same(
      page.results.map((r) => r.name),
      ['Cy', 'Ann'],
      'the caller filter is cast and ANDed with the fk'
    )
  }
  {
    const page = await companies.listRelated(ctx(alice), co._id, 'primaryContact', {})
    t.same(
      page.results.map((r) => r.name),
      ['Bo'],
      "a hasOne's where applies"
    )
  }
})

t.test('tenancy: the parent must be readable and the target stays in the caller tenant', async (t) => {
  const schemas = makeRelationSchemas().map((s) => (s.path === 'companies' ? { ...s, acl: { list: ['admin'] } } : s))
  const app = await buildCoreApp(t, { schemas })
  const alice = makeUser()
  const mallory = makeUser()
  const co = await post(app, alice, 'companies', { name: 'Acme' })
  await post(app, alice, 'contacts', { name: 'Ann', companyId: co._id })
  // Mallory's own contact carries Alice's company id.
  await post(app, mallory, 'contacts', { name: 'Forged', companyId: co._id })
  const companies = app.svc.services.get('companies')
  await t.rejects(
    companies.listRelated(ctx(mallory), co._id, 'contacts'),
    { code: 'NOT_FOUND', statusCode: 404 },
    "another tenant's parent is 404"
  )
  await t.rejects(
    companies.listRelated(ctx(mallory, ['admin']), co._id, 'contacts'),
    { code: 'NOT_FOUND', statusCode: 404 },
    'acl.list does not open get-by-id of a parent'
  )
  const page = await companies.listRelated(ctx(alice), co._id, 'contacts')
  t.same(
    page.results.map((r) => r.name),
    ['Ann'],
    "Mallory's forged row never shows on Alice's side"
  )
})

t.test('tombstones, field ACL and bad input', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const alice = makeUser()
  const co = await post(app, alice, 'companies', { name: 'Acme' })
  await post(app, alice, 'contacts', { name: 'Ann', companyId: co._id, ssn: 'x' })
  const gone = await post(app, alice, 'contacts', { name: 'Gone', companyId: co._id })
  await app.svc.db.collection('contacts').updateOne({ name: 'Gone' }, { $set: { deletedAt: new Date() } })
  app.svc.services
    .get('contacts')
    .addScope(({ options }) => (options.includeDeleted === true ? undefined : { deletedAt: null }))
  const companies = app.svc.services.get('companies')
  {
    const page = await companies.listRelated(ctx(alice), co._id, 'contacts', { includeDeleted: true })
    t.same(
      page.results.map((r) => r.name),
      ['Ann'],
      `tombstones stay hidden (${gone._id as string}) even when asked for`
    )
    t.notOk('ssn' in page.results[0], "the target's field ACL strips ssn")
  }
  await t.rejects(
    companies.listRelated(ctx(alice), co._id, 'contacts', { filter: { ssn: 'x' } }),
    { code: 'VALIDATION', statusCode: 400, details: { field: 'ssn' } },
    'a hidden target field cannot be filtered on'
  )
  await t.rejects(
    companies.listRelated(ctx(alice), co._id, 'nope'),
    { code: 'VALIDATION', statusCode: 400, details: { relation: 'nope' } },
    'unknown relation'
  )
  const contacts = app.svc.services.get('contacts')
  const ann = (await contacts.list(ctx(alice), { filter: { name: 'Ann' } })).results[0]
  await t.rejects(
    contacts.listRelated(ctx(alice), ann._id, 'company'),
    { code: 'VALIDATION', statusCode: 400, details: { relation: 'company' } },
    'a belongsTo is not a list'
  )
  await t.rejects(
    companies.listRelated(ctx(alice), 'not-an-id', 'contacts'),
    { code: 'NOT_FOUND', statusCode: 404 },
    'malformed parent id is 404'
  )
})
