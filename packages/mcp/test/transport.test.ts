import t from 'tap'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { ApiClientStore } from '@svc/core/kit'
import { signToken } from '@svc/testkit'
import { INSTRUCTIONS } from '../src/index.js'
import { JWT_SECRET, buildApp, connect, makeUser } from './helper.js'

// The HTTP side of /mcp: authentication, the stateless transport, protocol-level refusals.

const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }

t.test('credentials: 401 envelope without or with bad ones, the same rules as REST', async (t) => {
  const { app } = await buildApp(t)
  {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: JSON_RPC, payload: LIST })
    t.equal(res.statusCode, 401, 'no credentials')
    t.same(res.json(), { error: { code: 'UNAUTHENTICATED', message: 'authentication required' } })
  }
  {
    const expired = signToken({ user_id: 'u1', email: 'a@b.c', roles: ['user'] }, JWT_SECRET, { expiresIn: -10 })
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, authorization: `Bearer ${expired}` },
      payload: LIST
    })
    t.equal(res.statusCode, 401, 'expired token')
    t.equal(res.json().error.code, 'UNAUTHENTICATED')
  }
  {
    const none = signToken({ user_id: 'u1', email: 'a@b.c', roles: ['user'] }, JWT_SECRET, { alg: 'none' })
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, authorization: `Bearer ${none}` },
      payload: LIST
    })
    t.equal(res.statusCode, 401, 'alg none')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, 'x-client-id': 'no-such-client' },
      payload: LIST
    })
    t.equal(res.statusCode, 401, 'unknown client id')
  }
})

t.test('the SDK client connects, reads the instructions and lists tools', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  t.equal(client.getServerVersion()?.name, 'svc')
  t.equal(client.getInstructions(), INSTRUCTIONS)
  t.same(client.getServerCapabilities()?.tools, { listChanged: false })
  t.ok((await client.listTools()).tools.length > 0)
})

t.test('stateless: GET and DELETE are 405, no session id is handed out', async (t) => {
  const { app } = await buildApp(t)
  const user = makeUser()
  for (const method of ['GET', 'DELETE'] as const) {
    const res = await app.inject({ method, url: '/mcp', headers: { ...user.headers, accept: 'text/event-stream' } })
    t.equal(res.statusCode, 405, method)
    t.equal(res.headers.allow, 'POST')
    t.equal(res.json().error.code, 'METHOD_NOT_ALLOWED', 'the service envelope')
  }
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
  }
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...JSON_RPC, ...user.headers },
    payload: init
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['mcp-session-id'], undefined, 'no session')
  t.match(res.headers['content-type'], /application\/json/, 'a JSON response, not a stream')
  t.equal(res.json().result.serverInfo.name, 'svc')
})

t.test('protocol errors stay protocol errors: unknown tool, wrong Accept, bad JSON-RPC', async (t) => {
  const { app, url } = await buildApp(t)
  const user = makeUser()
  const client = await connect(t, url, user.headers)
  await t.rejects(
    client.callTool({ name: 'drop_everything', arguments: {} }),
    McpError,
    'an unknown tool is a JSON-RPC error'
  )
  {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...user.headers, 'content-type': 'application/json', accept: 'application/json' },
      payload: LIST
    })
    t.equal(res.statusCode, 406, 'the client must accept both JSON and SSE')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, ...user.headers },
      payload: { hello: 'world' }
    })
    t.equal(res.statusCode, 400, 'not a JSON-RPC message')
    t.equal(res.json().error.code, -32700)
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, ...user.headers },
      payload: { jsonrpc: '2.0', method: 'notifications/initialized' }
    })
    t.equal(res.statusCode, 202, 'a notification is accepted without a body')
  }
})

t.test('batches: one answer per request, in order; malformed batches are refused', async (t) => {
  const { app } = await buildApp(t)
  const headers = { ...JSON_RPC, ...makeUser().headers }
  const post = async (payload: unknown, extra: Record<string, string> = {}): Promise<any> =>
    await app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, ...extra }, payload: payload as object })
  {
    const call = (id: number, name: string): object => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} }
    })
    const res = await post([
      call(7, 'list_logs'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(8, 'list_resources')
    ])
    t.equal(res.statusCode, 200)
    t.same(
      res.json().map((r: any) => r.id),
      [7, 8],
      'responses to the two requests, the notification unanswered'
    )
    t.equal(res.json()[0].result.structuredContent.totalResults, 0)
  }
  t.equal((await post([LIST, { ...LIST }])).statusCode, 400, 'two requests with one id')
  t.equal((await post([])).statusCode, 400, 'an empty batch')
  t.equal(
    (await post(Array.from({ length: 101 }, (_, i) => ({ ...LIST, id: i })))).statusCode,
    400,
    'more than 100 messages'
  )
  {
    const res = await post(LIST, { 'mcp-protocol-version': '1999-01-01' })
    t.equal(res.statusCode, 400, 'an unsupported protocol version')
    t.match(res.json().error.message, /Unsupported protocol version/)
  }
  {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
    }
    t.equal((await post([init, { ...LIST, id: 2 }])).statusCode, 400, 'initialize must be alone')
  }
  {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'resources/list', params: {} })
    t.equal(res.json().error.code, -32601, 'a method the server does not offer is a JSON-RPC error')
  }
})

t.test('an api client (X-Client-Id) is read-only: write tools are absent and refused', async (t) => {
  const { app, url } = await buildApp(t)
  const publicClient = await new ApiClientStore(app.svc.db).create({ role: 'public', name: 'storefront' })
  const client = await connect(t, url, { 'x-client-id': publicClient._id })
  const names = (await client.listTools()).tools.map((x) => x.name).sort()
  // Only products has a scope for role `public`; history and aggregations need a user.
  t.same(names, ['get_products', 'list_products', 'list_resources'])
  const res = await client.callTool({ name: 'create_products', arguments: { record: { name: 'x' } } })
  t.equal(res.isError, true, 'a write tool called anyway is refused by the service')
  t.match(JSON.parse((res.content as any)[0].text), { error: { code: 'FORBIDDEN' } })
  const other = await client.callTool({ name: 'list_deals', arguments: {} })
  t.match(
    JSON.parse((other.content as any)[0].text),
    { error: { code: 'FORBIDDEN' } },
    'a schema without a scope for the role is closed'
  )
})
