import t from 'tap'
import { createHash } from 'node:crypto'
import { buildApp, fails, gql, makeUser, ok } from './helper.js'

const user = makeUser()

t.test('depth, cost, introspection and GraphiQL outside production', async (t) => {
  // A budget above the analysis' cap (10¹⁵): this nesting's price (each company's contacts handed
  // out again under every contact) passes, so the depth limit is what refuses it.
  const { app } = await buildApp(t, { core: { maxRequestCost: 1e16 } })
  // 20 levels: company → contacts → company → …
  let nested = 'name'
  for (let i = 0; i < 10; i++) nested = `contacts { company { ${nested} } }`
  const deep = await gql(app, user.headers, `{ companiesMany { ${nested} } }`)
  t.equal(deep.status, 400, 'a 20-level query is refused before running')
  t.equal(deep.errors?.[0].extensions.code, 'VALIDATION')
  t.match(deep.errors?.[0].message, /depth/)

  const { app: small } = await buildApp(t, { core: { maxRequestCost: 500 } })
  const costly = await fails(small, user.headers, '{ contactsMany(limit: 200) { firstName lastName email } }')
  t.equal(costly.code, 'VALIDATION')
  t.equal(costly.status, 400)
  t.match(costly.details, { cost: 601, limit: 500 }, 'each field counted per list item')
  const viaVariable = await fails(
    small,
    user.headers,
    'query ($n: Int) { contactsMany(limit: $n) { firstName lastName email } }',
    { n: 200 }
  )
  t.equal(viaVariable.code, 'VALIDATION', 'a limit given as a variable counts too')
  const fragment = await fails(
    small,
    user.headers,
    'query { contactsMany(limit: 200) { ...F } } fragment F on Contacts { firstName lastName ... on Contacts { email } }'
  )
  t.equal(fragment.code, 'VALIDATION', 'fragments are counted')
  await ok(small, user.headers, '{ contactsMany(limit: 10) { firstName company { name } } }')

  const schema = await ok(app, {}, '{ __schema { types { name } } }')
  t.ok(schema.__schema.types.length > 0, 'introspection open outside production, without credentials')
  t.equal((await app.inject({ method: 'GET', url: '/graphiql' })).statusCode, 200)
})

t.test('production: no introspection, no GraphiQL, unless enabled', async (t) => {
  const { app } = await buildApp(t, { graphql: { production: true } })
  const refused = await gql(app, user.headers, '{ __schema { types { name } } }')
  t.equal(refused.status, 400)
  t.equal(refused.errors?.[0].extensions.code, 'VALIDATION')
  t.equal((await app.inject({ method: 'GET', url: '/graphiql' })).statusCode, 404)
  const { app: open } = await buildApp(t, { graphql: { production: true, introspection: true, graphiql: true } })
  await ok(open, user.headers, '{ __schema { types { name } } }')
  t.equal((await open.inject({ method: 'GET', url: '/graphiql' })).statusCode, 200)
})

t.test('options are checked at registration', async (t) => {
  await t.rejects(buildApp(t, { graphql: { maxDepth: 0 } }), /maxDepth/)
  await t.rejects(buildApp(t, { graphql: { path: 'graphql' } }), /path/)
})

t.test('automatic persisted queries: hash first, the query once, then the hash alone', async (t) => {
  const { app } = await buildApp(t)
  const query = '{ companiesMany { name } }'
  const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') }
  const post = async (payload: Record<string, unknown>): Promise<any> =>
    (await app.inject({ method: 'POST', url: '/graphql', headers: user.headers, payload })).json()
  const unknown = await post({ extensions: { persistedQuery } })
  t.equal(unknown.errors[0].message, 'PersistedQueryNotFound', 'the message APQ clients look for')
  t.same((await post({ query, extensions: { persistedQuery } })).data, { companiesMany: [] })
  t.same((await post({ extensions: { persistedQuery } })).data, { companiesMany: [] }, 'served from the hash')
  const { app: off } = await buildApp(t, { graphql: { persistedQueries: false } })
  const refused = (
    await off.inject({
      method: 'POST',
      url: '/graphql',
      headers: user.headers,
      payload: { extensions: { persistedQuery } }
    })
  ).json()
  t.equal(refused.errors[0].extensions.code, 'VALIDATION', 'off: a hash alone is no query')
})
