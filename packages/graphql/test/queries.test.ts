import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, fails, gql, makeUser, ok, restCreate } from './helper.js'

const { app } = await buildApp(t)
const alice = makeUser()
const bob = makeUser()
const admin = makeUser({ roles: ['user', 'admin'] })

const acme = await restCreate(app, alice, 'companies', { name: 'Acme', industry: 'software' })
const ada = await restCreate(app, alice, 'contacts', {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ADA@x.test',
  score: 9,
  companyId: acme._id,
  status: 'customer'
})
const bo = await restCreate(app, alice, 'contacts', { firstName: 'Bo', lastName: 'Diddley', score: 3 })
const bobs = await restCreate(app, bob, 'contacts', { firstName: 'Bob', lastName: 'Other', score: 5 })

t.test('<path>ById answers the REST record, computed fields included', async (t) => {
  const data = await ok(
    app,
    alice.headers,
    'query ($id: ID!) { contactsById(_id: $id) { _id firstName email score fullName status userId createdAt } }',
    { id: ada._id }
  )
  const rest = (await app.inject({ method: 'GET', url: `/api/v1/contacts/${ada._id}`, headers: alice.headers })).json()
  t.same(data.contactsById, {
    _id: rest._id,
    firstName: 'Ada',
    email: 'ada@x.test',
    score: 9,
    fullName: 'Ada Lovelace',
    status: 'customer',
    userId: alice.userId,
    createdAt: rest.createdAt
  })
})

t.test('<path>ById: unknown, malformed and foreign ids are NOT_FOUND (404, no data)', async (t) => {
  for (const id of ['65f0000000000000000000ff', 'nope', bobs._id]) {
    const e = await fails(app, alice.headers, `{ contactsById(_id: "${id}") { _id } }`)
    t.equal(e.code, 'NOT_FOUND', id)
    t.equal(e.status, 200, 'data is present (null field): GraphQL over HTTP answers 200')
    t.same(e.data, { contactsById: null })
  }
})

t.test('<path>Many: filter, operators, sort, limit, skip', async (t) => {
  const all = await ok(app, alice.headers, '{ contactsMany { firstName } }')
  t.same(all.contactsMany.map((c: any) => c.firstName).sort(), ['Ada', 'Bo'], "only the caller's tenant")
  const eq = await ok(app, alice.headers, '{ contactsMany(filter: { status: "customer" }) { firstName } }')
  t.same(eq.contactsMany, [{ firstName: 'Ada' }])
  const ops = await ok(
    app,
    alice.headers,
    '{ contactsMany(filter: { _operators: { score: { gte: 4 } } }) { firstName } }'
  )
  t.same(ops.contactsMany, [{ firstName: 'Ada' }])
  const regex = await ok(
    app,
    alice.headers,
    '{ contactsMany(filter: { _operators: { lastName: { regex: "^dId", options: "i" } } }) { firstName } }'
  )
  t.same(regex.contactsMany, [{ firstName: 'Bo' }])
  const sorted = await ok(app, alice.headers, '{ contactsMany(sort: [score_ASC]) { firstName } }')
  t.same(
    sorted.contactsMany.map((c: any) => c.firstName),
    ['Bo', 'Ada']
  )
  const paged = await ok(app, alice.headers, '{ contactsMany(sort: [score_ASC], limit: 1, skip: 1) { firstName } }')
  t.same(paged.contactsMany, [{ firstName: 'Ada' }])
  const byIn = await ok(
    app,
    alice.headers,
    `{ contactsMany(filter: { _operators: { _id: { in: ["${bo._id}", "${bobs._id}"] } } }) { firstName } }`
  )
  t.same(byIn.contactsMany, [{ firstName: 'Bo' }], "another tenant's id in $in matches nothing")
})

t.test('<path>Many refusals are VALIDATION with the field named', async (t) => {
  const tooMany = await fails(app, alice.headers, '{ contactsMany(limit: 201) { _id } }')
  t.equal(tooMany.code, 'VALIDATION')
  t.equal(tooMany.details.field, 'limit')
  const negative = await fails(app, alice.headers, '{ contactsMany(skip: -1) { _id } }')
  t.equal(negative.details.field, 'skip')
  const both = await fails(
    app,
    alice.headers,
    '{ contactsMany(filter: { score: 3, _operators: { score: { gt: 1 } } }) { _id } }'
  )
  t.equal(both.code, 'VALIDATION')
  t.equal(both.details.field, 'score')
  const badEnum = await fails(app, alice.headers, '{ contactsMany(filter: { status: "vip" }) { _id } }')
  t.equal(badEnum.code, 'VALIDATION', "core's enum rule, as on REST")
  const regex = await fails(
    app,
    alice.headers,
    '{ contactsMany(filter: { _operators: { lastName: { regex: "(a+)+$" } } }) { _id } }'
  )
  t.equal(regex.code, 'VALIDATION', "REST's unsafe-regex rule")
})

t.test(
  'field ACL: unreadable fields read as null; filtering or sorting on them is VALIDATION, as on REST (the field is unknown to the caller)',
  async (t) => {
    await restCreate(app, admin, 'companies', { name: 'Secret', revenue: 100 })
    const own = await ok(app, admin.headers, '{ companiesMany { name revenue } }')
    t.same(own.companiesMany, [{ name: 'Secret', revenue: 100 }], 'admin reads revenue')
    const hidden = await ok(app, alice.headers, '{ companiesMany { name revenue } }')
    t.same(hidden.companiesMany, [{ name: 'Acme', revenue: null }], 'a user without the role gets null')
    const filter = await fails(
      app,
      alice.headers,
      '{ companiesMany(filter: { _operators: { revenue: { gt: 1 } } }) { name } }'
    )
    t.equal(filter.code, 'VALIDATION')
    t.equal(filter.details.field, 'revenue')
    const sort = await fails(app, alice.headers, '{ companiesMany(sort: [revenue_DESC]) { name } }')
    t.equal(sort.code, 'VALIDATION')
  }
)

t.test('<path>Search: text search, tenant-scoped', async (t) => {
  const found = await ok(app, alice.headers, '{ contactsSearch(q: "lovelace") { firstName } }')
  t.same(found.contactsSearch, [{ firstName: 'Ada' }])
  const foreign = await ok(app, alice.headers, '{ contactsSearch(q: "other") { firstName } }')
  t.same(foreign.contactsSearch, [], "bob's contact is not found by alice")
  const empty = await fails(app, alice.headers, '{ contactsSearch(q: "  ") { _id } }')
  t.equal(empty.code, 'VALIDATION')
  const schema = await ok(app, alice.headers, '{ __schema { queryType { fields { name } } } }')
  const names = schema.__schema.queryType.fields.map((f: any) => f.name)
  t.ok(names.includes('companiesSearch'))
  t.notOk(names.includes('dealsSearch'), 'no searchable fields, no search query')
})

t.test('authentication: none is UNAUTHENTICATED per operation (401), a bad bearer refuses the request', async (t) => {
  const anon = await fails(app, {}, '{ contactsMany { _id } }')
  t.equal(anon.code, 'UNAUTHENTICATED')
  t.equal(anon.status, 401)
  const bad = await gql(app, { authorization: 'Bearer not.a.token' }, '{ contactsMany { _id } }')
  t.equal(bad.status, 401)
  t.equal(bad.errors?.[0].extensions.code, 'UNAUTHENTICATED')
  t.equal(bad.data, null)
})

t.test('api clients (X-Client-Id) read only what acl.scope publishes', async (t) => {
  await restCreate(app, alice, 'products', { name: 'Public', published: true })
  await restCreate(app, alice, 'products', { name: 'Draft' })
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  const headers = { 'x-client-id': client._id }
  const data = await ok(app, headers, '{ productsMany { name } }')
  t.same(data.productsMany, [{ name: 'Public' }])
  const closed = await fails(app, headers, '{ contactsMany { _id } }')
  t.equal(closed.code, 'FORBIDDEN', 'a schema without a scope for the role is closed')
})

t.test('malformed queries are VALIDATION (400) without a stack', async (t) => {
  for (const q of [
    '{ contactsMany { ',
    '{ nope }',
    '{ contactsById { _id } }',
    '{ contactsMany(limit: "x") { _id } }'
  ]) {
    const res = await gql(app, alice.headers, q)
    t.equal(res.status, 400, q)
    t.equal(res.errors?.[0].extensions.code, 'VALIDATION', q)
    t.notMatch(res.raw, /at .*\.(js|ts):\d+/, 'no stack trace')
  }
  const variable = await gql(app, alice.headers, 'query ($d: ID!) { contactsById(_id: $d) { _id } }', {})
  t.equal(variable.status, 400)
  t.equal(variable.errors?.[0].extensions.code, 'VALIDATION', 'a missing variable')
  const body = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { ...alice.headers, 'content-type': 'application/json' },
    payload: '{"query": '
  })
  t.equal(body.statusCode, 400)
  t.notMatch(body.body, /at .*\.(js|ts):\d+/)
})

t.test('a repeated query runs JIT-compiled with the same answers, errors included', async (t) => {
  const queries = [
    `{ contactsById(_id: "${ada._id as string}") { _id firstName fullName createdAt company { name } } }`,
    '{ contactsMany(filter: { _operators: { score: { gte: 1 } } }, sort: [score_DESC]) { firstName score } }',
    `{ contactsById(_id: "${bobs._id as string}") { _id } }`,
    '{ contactsMany(limit: 500) { _id } }'
  ]
  for (const q of queries) {
    const first = await gql(app, alice.headers, q)
    for (let i = 0; i < 2; i++) {
      const again = await gql(app, alice.headers, q)
      t.same(
        { status: again.status, data: again.data, errors: again.errors },
        { status: first.status, data: first.data, errors: first.errors },
        q
      )
    }
  }
  const { app: interpreted } = await buildApp(t, { graphql: { jit: 0 } })
  await ok(interpreted, alice.headers, '{ contactsMany { _id } }')
  await t.rejects(buildApp(t, { graphql: { jit: -1 } }), /jit/)
})
