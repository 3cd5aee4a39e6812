import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient } from 'mongodb'
import { getTestDb } from '@svc/testkit'
import svcCore from '../src/index.js'
import { JWT_SECRET, buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeRelationSchemas, relationSchemas } from './fixtures/relation-schemas.js'

async function post (app: FastifyInstance, u: TestUser, path: string, payload: Record<string, unknown>): Promise<any> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: u.headers, payload })
  if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${res.body}`)
  return res.json()
}

async function get (app: FastifyInstance, u: TestUser, url: string): Promise<any> {
  const res = await app.inject({ method: 'GET', url, headers: u.headers })
  t.equal(res.statusCode, 200, `GET ${url}`)
  return res.json()
}

t.test("an fk forged to point at another tenant's record populates null / []", async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const alice = makeUser()
  const mallory = makeUser()
  const aliceCo = await post(app, alice, 'companies', { name: 'Alice Co' })
  await post(app, alice, 'contacts', { name: 'Alice contact', companyId: aliceCo._id, primary: true })
  // Mallory stores Alice's company id in her own records (the fk is a plain string field).
  await post(app, mallory, 'contacts', { name: 'Forged', companyId: aliceCo._id })
  const malloryCo = await post(app, mallory, 'companies', { name: 'Mallory Co' })
  await app.svc.db.collection('contacts').updateOne({ name: 'Alice contact' }, { $set: { companyId: malloryCo._id } })
  {
    const body = await get(app, mallory, '/api/v1/contacts?__include=company')
    t.same(
      body.results.map((r: any) => r.company),
      [null],
      "belongsTo never returns another tenant's company"
    )
  }
  {
    // Alice's contact now points at Mallory's company: hasMany on Mallory's side must not show it.
    const body = await get(
      app,
      mallory,
      `/api/v1/companies/${malloryCo._id as string}?__include=contacts,primaryContact`
    )
    t.same(body.contacts, [], "hasMany never returns another tenant's rows")
    t.equal(body.primaryContact, null, "hasOne never returns another tenant's row")
  }
  {
    const body = await get(app, alice, '/api/v1/contacts?__include=company')
    t.same(
      body.results.map((r: any) => r.company),
      [null],
      "and Alice does not see Mallory's company either"
    )
  }
})

t.test('acl.list roles see other tenants on list, but includes stay in the caller tenant', async (t) => {
  const schemas = relationSchemas.map((s) => (s.path === 'contacts' ? { ...s, acl: { list: ['admin'] } } : s))
  const app = await buildCoreApp(t, { schemas })
  const alice = makeUser()
  const admin = makeUser({ roles: ['admin'] })
  const co = await post(app, alice, 'companies', { name: 'Alice Co' })
  await post(app, alice, 'contacts', { name: 'Ann', companyId: co._id })
  const body = await get(app, admin, '/api/v1/contacts?__include=company')
  t.equal(body.results.length, 1, "acl.list lifts the userId filter on the admin's list")
  t.same(
    body.results.map((r: any) => r.company),
    [null],
    "the admin's include re-applies the admin's userId"
  )
})

t.test('tombstoned related records are never populated, whatever __includeDeleted says', async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  // A scope like @svc/softdelete's: hides deletedAt unless includeDeleted.
  for (const s of app.svc.services.all()) {
    s.addScope(({ options }) => (options.includeDeleted === true ? undefined : { deletedAt: null }))
  }
  const u = makeUser()
  const co = await post(app, u, 'companies', { name: 'Acme' })
  const live = await post(app, u, 'contacts', { name: 'Live', companyId: co._id })
  const dead = await post(app, u, 'contacts', { name: 'Dead', companyId: co._id })
  await app.svc.db.collection('contacts').updateOne({ name: 'Dead' }, { $set: { deletedAt: new Date() } })
  await app.svc.db.collection('companies').updateOne({ name: 'Acme' }, { $set: { deletedAt: new Date() } })
  {
    const body = await get(app, u, `/api/v1/companies/${co._id as string}?__include=contacts&__includeDeleted=true`)
    t.same(
      body.contacts.map((c: any) => c._id),
      [live._id],
      'tombstoned child filtered although the parent read includes deleted'
    )
  }
  {
    const body = await get(app, u, '/api/v1/contacts?__include=company&__includeDeleted=true&__sort=name:asc')
    t.same(
      body.results.map((r: any) => [r._id, r.company]),
      [
        [dead._id, null],
        [live._id, null]
      ],
      'tombstoned parent target is null'
    )
  }
})

t.test("populated records pass through the target's field ACL", async (t) => {
  const app = await buildCoreApp(t, { schemas: relationSchemas })
  const user = makeUser()
  const co = await post(app, user, 'companies', { name: 'Acme', revenue: 100 })
  await post(app, user, 'contacts', { name: 'Ann', companyId: co._id, ssn: '123' })
  {
    const body = await get(app, user, '/api/v1/contacts?__include=company')
    t.equal(body.results[0].company.name, 'Acme')
    t.notOk(
      'revenue' in body.results[0].company,
      'a field the caller cannot read is stripped from the populated record'
    )
    t.notOk('ssn' in body.results[0], 'and from the parent')
  }
  {
    const body = await get(app, user, `/api/v1/companies/${co._id as string}?__include=contacts`)
    t.notOk('ssn' in body.contacts[0], 'hasMany records projected too')
  }
  const admin = makeUser({ user_id: user.userId, roles: ['admin'] })
  {
    const body = await get(app, admin, '/api/v1/contacts?__include=company')
    t.equal(body.results[0].company.revenue, 100, 'visible to a role that may read it')
  }
})

t.test('one query per relation for a whole page (command monitoring)', async (t) => {
  const { uri } = await getTestDb(t)
  const client = new MongoClient(uri, { monitorCommands: true })
  await client.connect()
  t.teardown(async () => await client.close())
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db: client.db(), jwtSecret: JWT_SECRET, schemas: relationSchemas })
  t.teardown(async () => await app.close())
  await app.ready()
  const u = makeUser()
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'system' as const }
  const companies: Array<{ _id: string }> = []
  for (let i = 0; i < 10; i++) companies.push(await app.svc.services.get('companies').create(ctx, { name: `co ${i}` }))
  const docs = Array.from({ length: 60 }, (_, i) => ({
    name: `c ${i}`,
    companyId: companies[i % 10]._id,
    userId: u.userId,
    createdAt: new Date(),
    updatedAt: new Date()
  }))
  await client.db().collection('contacts').insertMany(docs)
  await client
    .db()
    .collection('deals')
    .insertMany(
      docs.map((d) => ({
        title: d.name,
        companyId: d.companyId,
        userId: u.userId,
        createdAt: d.createdAt,
        updatedAt: d.updatedAt
      }))
    )
  const seen: string[] = []
  // Authentication's users lookup (the bearer's passwordChangedAt) is not the page's query.
  client.on('commandStarted', (e) => {
    if (e.databaseName === client.db().databaseName && e.command[e.commandName] !== 'users') {
      seen.push(`${e.commandName}:${String(e.command[e.commandName])}`)
    }
  })
  {
    seen.length = 0
    const body = await get(app, u, '/api/v1/companies?__include=contacts,deals,primaryContact')
    t.equal(body.results.length, 10)
    t.ok(
      body.results.every((c: any) => c.contacts.length === 6 && c.deals.length === 6),
      'every parent fully populated'
    )
    t.same(
      seen.sort(),
      ['aggregate:companies', 'find:companies', 'find:contacts', 'find:contacts', 'find:deals'],
      'page find + count + one find per relation'
    )
  }
  {
    seen.length = 0
    const body = await get(app, u, '/api/v1/contacts?__include=company&__perPage=60')
    t.equal(body.results.filter((c: any) => c.company != null).length, 60)
    t.same(seen.sort(), ['aggregate:contacts', 'find:companies', 'find:contacts'], '60 parents, one belongsTo query')
  }
  {
    const id = (await get(app, u, '/api/v1/contacts')).results[0]._id as string
    seen.length = 0
    await get(app, u, `/api/v1/contacts/${id}?__include=company`)
    t.same(seen.sort(), ['find:companies', 'find:contacts'], 'get by id: the record + one relation find')
  }
  seen.length = 0
  await get(app, u, '/api/v1/contacts?name=nobody&__include=company')
  t.same(seen.sort(), ['aggregate:contacts', 'find:contacts'], 'an empty page issues no relation query')
})

t.test('an include through a foreign key the caller cannot read is 400', async (t) => {
  const schemas = makeRelationSchemas()
  schemas[1].fields[1] = { name: 'companyId', type: String, acl: { read: ['admin'] } }
  const app = await buildCoreApp(t, { schemas })
  const admin = makeUser({ roles: ['admin'] })
  const user = makeUser({ user_id: admin.userId, roles: ['user'] })
  const co = await post(app, admin, 'companies', { name: 'Acme' })
  await post(app, admin, 'contacts', { name: 'Ann', companyId: co._id })
  for (const url of [
    '/api/v1/contacts?__include=company',
    `/api/v1/companies/${co._id as string}?__include=contacts`
  ]) {
    const res = await app.inject({ method: 'GET', url, headers: user.headers })
    t.equal(res.statusCode, 400, `GET ${url} without read access to the fk`)
    t.equal(res.json().error.details.field, '__include')
    const ok = await app.inject({ method: 'GET', url, headers: admin.headers })
    t.equal(ok.statusCode, 200, `GET ${url} as a role that can read it`)
  }
})

t.test('api clients populate through the target scope only', async (t) => {
  const schemas = makeRelationSchemas()
  schemas[1].acl = { scope: { public: { primary: true } } }
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const co = await post(app, u, 'companies', { name: 'Acme' })
  await post(app, u, 'contacts', { name: 'Ann', companyId: co._id, primary: true })
  const ctx = {
    identity: { kind: 'client' as const, userId: null, roles: ['public'], clientId: 'pub' },
    surface: 'system' as const
  }
  const contacts = app.svc.services.get('contacts')
  {
    const res = await contacts.list(ctx, {})
    t.equal(res.results.length, 1, 'the client reads contacts through its scope')
  }
  await t.rejects(
    contacts.list(ctx, { include: 'company' }),
    { statusCode: 403 } as any,
    'companies has no scope for the client: the include is refused'
  )
})
