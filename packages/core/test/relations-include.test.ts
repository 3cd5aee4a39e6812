import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ObjectId } from 'mongodb'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeRelationSchemas, relationSchemas } from './fixtures/relation-schemas.js'

async function post (app: FastifyInstance, u: TestUser, path: string, payload: Record<string, unknown>): Promise<any> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: u.headers, payload })
  if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${res.body}`)
  return res.json()
}

async function get (app: FastifyInstance, u: TestUser, url: string): Promise<any> {
  const res = await app.inject({ method: 'GET', url, headers: u.headers })
  return { status: res.statusCode, body: res.json() }
}

t.test('belongsTo, hasOne (with where) and hasMany on list and get', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const u = makeUser()
  const acme = await post(app, u, 'companies', { name: 'Acme', revenue: 5 })
  const globex = await post(app, u, 'companies', { name: 'Globex' })
  const ann = await post(app, u, 'contacts', { name: 'Ann', companyId: acme._id })
  const bob = await post(app, u, 'contacts', { name: 'Bob', companyId: acme._id, primary: true })
  await post(app, u, 'contacts', { name: 'Orphan' })
  const deal = await post(app, u, 'deals', { title: 'Big', companyId: acme._id, contactId: ann._id })
  {
    const { status, body } = await get(app, u, '/api/v1/contacts?__include=company&__sort=name:asc')
    t.equal(status, 200, 'list with belongsTo include')
    t.same(
      body.results.map((r: any) => [r.name, r.company?.name ?? null]),
      [
        ['Ann', 'Acme'],
        ['Bob', 'Acme'],
        ['Orphan', null]
      ]
    )
    t.equal(body.results[0].companyId, acme._id, 'fk stays as stored')
  }
  {
    const { status, body } = await get(app, u, `/api/v1/companies/${acme._id}?__include=contacts,primaryContact,deals`)
    t.equal(status, 200, 'get with three includes')
    t.same(
      body.contacts.map((c: any) => c.name),
      ['Bob', 'Ann'],
      'hasMany newest first'
    )
    t.equal(body.primaryContact.name, 'Bob', 'hasOne honours where')
    t.equal(body.primaryContact._id, bob._id)
    t.same(
      body.deals.map((d: any) => d._id),
      [deal._id]
    )
  }
  {
    const { body } = await get(app, u, `/api/v1/companies/${globex._id}?__include=contacts,primaryContact`)
    t.same(body.contacts, [], 'hasMany with no rows is []')
    t.equal(body.primaryContact, null, 'hasOne with no row is null')
  }
  {
    const { body } = await get(app, u, `/api/v1/deals/${deal._id}?__include=contact,company`)
    t.equal(body.contact.name, 'Ann', 'legacy reference shorthand is a belongsTo')
    t.equal(body.company.name, 'Acme')
  }
  {
    const { body } = await get(app, u, '/api/v1/contacts')
    t.notOk('company' in body.results[0], 'nothing populated without __include')
  }
  {
    const { body } = await get(app, u, '/api/v1/contacts?__include=company,company')
    t.equal(body.results.length, 3, 'a repeated name is included once')
  }
})

t.test('fks stored as ObjectId or as mixed-case hex strings populate too', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const u = makeUser()
  const acme = await post(app, u, 'companies', { name: 'Acme' })
  const now = new Date()
  await app.svc.db.collection('contacts').insertMany([
    { name: 'Oid', companyId: new ObjectId(acme._id), userId: u.userId, createdAt: now, updatedAt: now },
    { name: 'Upper', companyId: acme._id.toUpperCase(), userId: u.userId, createdAt: now, updatedAt: now },
    { name: 'Junk', companyId: 'not-an-id', userId: u.userId, createdAt: now, updatedAt: now }
  ])
  {
    const { body } = await get(app, u, '/api/v1/contacts?__include=company&__sort=name:asc')
    t.same(
      body.results.map((r: any) => [r.name, r.company?._id ?? null]),
      [
        ['Junk', null],
        ['Oid', acme._id],
        ['Upper', acme._id]
      ]
    )
  }
  {
    const { body } = await get(app, u, `/api/v1/companies/${acme._id}?__include=contacts`)
    // A string fk on the target is matched as the lower-case hex the service writes.
    t.same(body.contacts.map((c: any) => c.name).sort(), ['Oid'], 'hasMany matches ObjectId and string fks')
  }
})

t.test('bad __include values are 400 VALIDATION naming the relation', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const u = makeUser()
  const c = await post(app, u, 'contacts', { name: 'Ann' })
  const cases: Array<[string, string | undefined, RegExp]> = [
    ['company.contacts', 'company.contacts', /one hop/],
    ['compny', 'compny', /unknown relation 'compny'.*did you mean 'company'/],
    ['company,', undefined, /empty/],
    ['__proto__', '__proto__', /unknown relation/],
    ['toString', 'toString', /unknown relation/]
  ]
  for (const [inc, relation, msg] of cases) {
    for (const url of [
      `/api/v1/contacts?__include=${encodeURIComponent(inc)}`,
      `/api/v1/contacts/${c._id as string}?__include=${encodeURIComponent(inc)}`
    ]) {
      const { status, body } = await get(app, u, url)
      t.equal(status, 400, `GET ${url}`)
      t.equal(body.error.code, 'VALIDATION')
      t.equal(body.error.details.field, '__include')
      t.equal(body.error.details.relation, relation)
      t.match(body.error.message, msg)
    }
  }
})

t.test('a relation where outside the filter rules, or named like a field, stops start-up', async (t) => {
  const bad = makeRelationSchemas()
  bad[0].relations.primaryContact.where = { primary: { $where: 'true' } }
  await t.rejects(buildCoreApp(t, { schemas: bad }), /relations\.primaryContact\.where/)
  const clash = makeRelationSchemas()
  clash[1].fields.push({ name: 'company', type: String })
  await t.rejects(buildCoreApp(t, { schemas: clash }), /relations\.company.*name of a field/)
})

t.test('an fk inside a sub-document (dotted path)', async (t) => {
  const schemas = [
    ...makeRelationSchemas(),
    {
      path: 'tickets',
      fields: [
        { name: 'title', type: String },
        { name: 'ref', type: { companyId: String } }
      ],
      relations: { company: { belongsTo: 'companies', fk: 'ref.companyId' } }
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const acme = await post(app, u, 'companies', { name: 'Acme' })
  const ticket = await post(app, u, 'tickets', { title: 't', ref: { companyId: acme._id } })
  const { status, body } = await get(app, u, `/api/v1/tickets/${ticket._id as string}?__include=company`)
  t.equal(status, 200)
  t.equal(body.company.name, 'Acme')
})
