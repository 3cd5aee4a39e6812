import t from 'tap'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { directCall, handlerError } from '../src/http/direct-call.js'
import { buildApp, makeUser } from './helper.js'

// A lone tools/call skips the SDK server's dispatch (src/http/direct-call.ts). The same call with
// `_meta` takes the SDK's path: both must answer byte for byte alike, errors and tenancy included.

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

async function post (
  url: string,
  headers: Record<string, string>,
  body: unknown
): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) })
  return { status: res.status, json: await res.json() }
}

const call = (params: Record<string, unknown>, id: number | string = 1): unknown => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params
})

t.test('the direct path answers as the SDK path: records, tool errors, unknown tools, tenancy', async (t) => {
  const { url } = await buildApp(t)
  const ann = makeUser()
  const other = makeUser()
  const created = await post(
    url,
    ann.headers,
    call({ name: 'create_contacts', arguments: { record: { firstName: 'Ann', lastName: 'Lee' } } })
  )
  const id = created.json.result.structuredContent._id as string
  t.match(id, /^[0-9a-f]{24}$/, 'create answered a record')
  const cases: Array<[string, Record<string, string>, Record<string, unknown>]> = [
    ['get', ann.headers, { name: 'get_contacts', arguments: { id } }],
    ["another tenant's get", other.headers, { name: 'get_contacts', arguments: { id } }],
    ['bad arguments', ann.headers, { name: 'get_contacts', arguments: { id, nope: 1 } }],
    ['no arguments', ann.headers, { name: 'list_contacts' }],
    ['unknown tool', ann.headers, { name: 'get_nothing', arguments: {} }]
  ]
  for (const [label, headers, params] of cases) {
    const direct = await post(url, headers, call(params, 'x'))
    const viaSdk = await post(url, headers, call({ ...params, _meta: { progressToken: 7 } }, 'x'))
    t.equal(direct.status, 200, `${label}: 200`)
    t.same(direct.json, viaSdk.json, `${label}: the same answer on both paths`)
  }
  const foreign = await post(url, other.headers, call({ name: 'get_contacts', arguments: { id } }))
  t.match(
    JSON.parse(foreign.json.result.content[0].text),
    { error: { code: 'NOT_FOUND' } },
    "another tenant's record is NOT_FOUND"
  )
  const unknown = await post(url, ann.headers, call({ name: 'get_nothing', arguments: {} }))
  t.match(
    unknown.json,
    { id: 1, error: { code: ErrorCode.InvalidParams, message: /Unknown tool: get_nothing/ } },
    'unknown tool: a protocol error'
  )
  const listArgs = await post(url, ann.headers, call({ name: 'get_contacts', arguments: [id] }))
  t.match(listArgs.json, { id: 1, error: { message: /expected record/ } }, 'array arguments: the SDK path refuses them')
  t.notOk('result' in listArgs.json, 'and runs nothing')
  const noAuth = await post(url, {}, call({ name: 'get_contacts', arguments: { id } }))
  t.equal(noAuth.status, 401, 'no credentials: refused before any call')
})

t.test('which messages go direct', async (t) => {
  t.same(directCall([call({ name: 'a', arguments: { x: 1 } }) as never]), { id: 1, name: 'a', args: { x: 1 } })
  t.same(directCall([call({ name: 'a' }) as never]), { id: 1, name: 'a', args: {} }, 'arguments default to {}')
  t.equal(
    directCall([call({ name: 'a' }) as never, call({ name: 'b' }, 2) as never]),
    undefined,
    'a batch: the SDK path'
  )
  t.equal(directCall([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]), undefined, 'another method')
  t.equal(
    directCall([{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } } as never]),
    undefined,
    'a notification'
  )
  t.equal(directCall([{ jsonrpc: '2.0', id: 1, method: 'tools/call' }]), undefined, 'no params')
  t.equal(directCall([call({ name: 1 }) as never]), undefined, 'a name that is no string')
  t.equal(directCall([call({ name: 'a', task: { ttl: 1 } }) as never]), undefined, 'a task request')
})

t.test("a thrown error becomes the SDK's JSON-RPC error answer", async (t) => {
  t.same(handlerError(3, new McpError(ErrorCode.InvalidParams, 'bad', { why: 1 })), {
    jsonrpc: '2.0',
    id: 3,
    error: { code: ErrorCode.InvalidParams, message: 'MCP error -32602: bad', data: { why: 1 } }
  })
  t.same(handlerError(3, new Error('boom')), {
    jsonrpc: '2.0',
    id: 3,
    error: { code: ErrorCode.InternalError, message: 'boom' }
  })
  t.same(handlerError(3, {}), {
    jsonrpc: '2.0',
    id: 3,
    error: { code: ErrorCode.InternalError, message: 'Internal error' }
  })
})
