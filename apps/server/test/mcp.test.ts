import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

const RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

t.test('the reference server serves MCP tools at POST /mcp and lists them in _describe', async (t) => {
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
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = auth): Promise<any> =>
    await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...RPC, ...headers },
      payload: { jsonrpc: '2.0', id: 1, method, params }
    })

  t.equal((await rpc('tools/list', {}, {})).statusCode, 401, 'credentials required')
  const names = (await rpc('tools/list', {}))
    .json()
    .result.tools.map((x: { name: string }) => x.name)
    .sort()
  t.same(
    names,
    [
      'create_notes',
      'delete_notes',
      'get_notes',
      'history_notes',
      'list_notes',
      'list_resources',
      'restore_notes',
      'update_notes'
    ],
    'soft delete and audit tools are there'
  )
  const created = (
    await rpc('tools/call', { name: 'create_notes', arguments: { record: { title: 'from an agent' } } })
  ).json().result
  t.equal(created.structuredContent.title, 'from an agent')
  const listed = (await rpc('tools/call', { name: 'list_notes', arguments: {} })).json().result
  t.equal(listed.structuredContent.totalResults, 1, 'the same records as REST')
  const rest = await app.inject({
    method: 'GET',
    url: `/api/v1/notes/${String(created.structuredContent._id)}`,
    headers: auth
  })
  t.equal(rest.json().title, 'from an agent')

  const notes = (await app.inject({ method: 'GET', url: '/_describe' }))
    .json()
    .schemas.find((s: { path: string }) => s.path === 'notes')
  t.same(
    [...notes.endpoints.mcp].sort(),
    names.filter((n: string) => n !== 'list_resources'),
    '_describe lists the generated tools'
  )
  t.equal((await app.inject({ method: 'GET', url: '/mcp', headers: auth })).statusCode, 405, 'stateless: no GET stream')
})

t.test('MCP_TOOLS, MCP_READ_ONLY and MCP_EXCLUDE choose the tools; a 401 points at the metadata', async (t) => {
  const { db } = await getTestDb(t)
  const auth = {
    authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, 'server-test-secret')}`
  }
  const names = async (env: Record<string, string>): Promise<string[]> => {
    const { config, problems } = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: 'server-test-secret',
      SCHEMA_DIR: workspace().schemaDir,
      PUBLIC_BASE_URL: 'https://svc.example.com',
      ...env
    })
    if (config == null) throw new Error(problems.join('; '))
    const app = await buildServer(config, { db, logger: false })
    t.teardown(async () => await app.close())
    await app.ready()
    const refused = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: RPC,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    })
    t.equal(
      refused.headers['www-authenticate'],
      'Bearer resource_metadata="https://svc.example.com/.well-known/oauth-protected-resource/mcp"',
      'PUBLIC_BASE_URL names the metadata'
    )
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...RPC, ...auth },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
    })
    return res.json().result.tools.map((x: { name: string }) => x.name)
  }
  t.same(await names({ MCP_TOOLS: 'compact' }), [
    'list',
    'get',
    'create',
    'update',
    'delete',
    'restore',
    'history',
    'list_resources',
    'describe_tool'
  ])
  t.same((await names({ MCP_READ_ONLY: 'true' })).sort(), [
    'get_notes',
    'history_notes',
    'list_notes',
    'list_resources'
  ])
  t.same(await names({ MCP_EXCLUDE: 'notes' }), ['list_resources'])
  t.match(loadConfig({ MCP_TOOLS: 'small' }).problems, [/MCP_TOOLS must be full or compact/])
})
