import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

t.test('the reference server serves GraphQL at POST /graphql and lists its operations in _describe', async (t) => {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  await app.ready()
  const auth = {
    authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, 'server-test-secret')}`
  }
  const gql = async (query: string, headers: Record<string, string> = auth): Promise<any> =>
    await app.inject({ method: 'POST', url: '/graphql', headers, payload: { query } })

  const anon = await gql('{ notesMany { _id } }', {})
  t.equal(anon.statusCode, 401, 'credentials required')
  t.equal(anon.json().errors[0].extensions.code, 'UNAUTHENTICATED')
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: auth,
    payload: { title: 'over REST' }
  })
  const id = created.json()._id as string
  const read = (await gql(`{ notesById(_id: "${id}") { _id title } }`)).json()
  t.same(read, { data: { notesById: { _id: id, title: 'over REST' } } }, 'the same records as REST')

  const notes = (await app.inject({ method: 'GET', url: '/_describe' }))
    .json()
    .schemas.find((s: { path: string }) => s.path === 'notes')
  const fields = (await gql('{ __schema { queryType { fields { name } } } }'))
    .json()
    .data.__schema.queryType.fields.map((f: { name: string }) => f.name)
  t.same(
    [...notes.endpoints.graphql.queries].sort(),
    fields.filter((n: string) => n.startsWith('notes') || n === 'historyByDoc').sort(),
    '_describe lists the generated queries'
  )
  t.equal((await app.inject({ method: 'GET', url: '/graphiql' })).statusCode, 200, 'GraphiQL outside production')
})

t.test(
  'production: introspection and GraphiQL off unless GRAPHQL_INTROSPECTION / GRAPHQL_GRAPHIQL say so',
  async (t) => {
    const { schemaDir } = workspace()
    const base = {
      NODE_ENV: 'production',
      JWT_SECRET: 'server-test-secret-of-production-length',
      SCHEMA_DIR: schemaDir,
      SVC_ALLOW_EMBEDDED_DB: 'true'
    }
    const start = async (env: Record<string, string>): Promise<any> => {
      const { config, problems } = loadConfig({ ...base, ...env })
      if (config == null) throw new Error(problems.join('; '))
      const { db } = await getTestDb(t)
      const app = await buildServer(config, { db, logger: false })
      t.teardown(async () => await app.close())
      await app.ready()
      return app
    }
    const closed = await start({})
    const refused = await closed.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ __schema { types { name } } }' }
    })
    t.equal(refused.json().errors[0].extensions.code, 'VALIDATION')
    t.equal((await closed.inject({ method: 'GET', url: '/graphiql' })).statusCode, 404)
    const open = await start({ GRAPHQL_INTROSPECTION: 'true', GRAPHQL_GRAPHIQL: 'true' })
    t.ok(
      (
        await open.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __schema { types { name } } }' } })
      ).json().data.__schema.types.length > 0
    )
    t.equal((await open.inject({ method: 'GET', url: '/graphiql' })).statusCode, 200)
    t.match(loadConfig({ ...base, GRAPHQL_INTROSPECTION: 'yes' }).problems, [
      /GRAPHQL_INTROSPECTION must be "true" or "false"/
    ])
  }
)
