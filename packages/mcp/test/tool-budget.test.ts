import t from 'tap'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, connect, fails, makeUser, ok, toolNames } from './helper.js'

// The tool budget: compact mode, read-only mode and per-schema opt-out, for clients that load
// few tools. The default (the spec's names) is tools-list.test.ts.

const COMPACT = [
  'list',
  'get',
  'search',
  'create',
  'update',
  'delete',
  'restore',
  'history',
  'list_related',
  'get_related',
  'aggregate'
]

t.test('compact: one tool per action, whatever the number of schemas', async (t) => {
  const { app, url } = await buildApp(t, { mcp: { tools: 'compact' } })
  const client = await connect(t, url, makeUser().headers)
  const { tools } = await client.listTools()
  t.same(
    tools.map((x) => x.name),
    [...COMPACT, 'list_resources', 'describe_tool'],
    'actions in order, then the two helpers'
  )
  const list = tools.find((x) => x.name === 'list')!
  t.same((list.inputSchema.properties as any).resource.enum, ['companies', 'contacts', 'deals', 'products', 'logs'])
  t.same(list.inputSchema.required, ['resource'])
  t.equal(list.annotations?.readOnlyHint, true)
  t.equal(tools.find((x) => x.name === 'delete')!.annotations?.destructiveHint, true)
  const related = tools.find((x) => x.name === 'get_related')!
  t.same((related.inputSchema.properties as any).relation.enum, ['primaryContact', 'company'])
  t.same(related.inputSchema.required, ['resource', 'relation', 'id'])
  const manifest = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  const deals = manifest.schemas.find((s: { path: string }) => s.path === 'deals')
  t.same(
    deals.endpoints.mcp,
    ['list', 'get', 'restore', 'history', 'create', 'update', 'delete', 'aggregate'],
    '_describe lists what is served'
  )

  // The calls go through the per-schema tool: same validation, same service.
  const deal = await ok(client, 'create', { resource: 'deals', record: { title: 'Pilot', amount: 1200 } })
  t.match(deal, { title: 'Pilot', amount: 1200, approval: 'draft', availableTransitions: ['submitted'] })
  const page = await ok(client, 'list', { resource: 'deals', filter: { amount: { $gte: 1000 } } })
  t.same(
    page.results.map((r: { _id: string }) => r._id),
    [deal._id]
  )
  const company = await ok(client, 'create', { resource: 'companies', record: { name: 'Acme' } })
  const contact = await ok(client, 'create', {
    resource: 'contacts',
    record: { firstName: 'Ada', lastName: 'L', companyId: company._id }
  })
  t.same(
    (await ok(client, 'get_related', { resource: 'contacts', relation: 'company', id: contact._id })).record._id,
    company._id
  )
  t.match(
    await fails(client, 'create', { resource: 'deals', record: { title: 'x', amount: -1 } }),
    { code: 'VALIDATION', details: { field: 'record.amount' } },
    "the schema's own rules"
  )
  t.match(await fails(client, 'list', { resource: 'invoices' }), { code: 'VALIDATION', details: { field: 'resource' } })
  t.match(
    await fails(client, 'list', {}),
    { code: 'VALIDATION', details: { field: 'resource' } },
    'resource is required'
  )
  t.match(await fails(client, 'get_related', { resource: 'contacts', relation: 'nope', id: contact._id }), {
    code: 'VALIDATION',
    details: { field: 'relation' }
  })
  t.match(
    await fails(client, 'get', { resource: 'deals', id: deal._id, bogus: 1 }),
    { code: 'VALIDATION' },
    'unknown arguments refused by the per-schema schema'
  )
  await t.rejects(
    client.callTool({ name: 'list_deals', arguments: {} }),
    McpError,
    'per-schema names are not offered in compact mode'
  )
})

t.test('compact: describe_tool gives the per-schema schemas, per caller', async (t) => {
  const full = await buildApp(t)
  const compact = await buildApp(t, { mcp: { tools: 'compact' } })
  const user = makeUser()
  const fullTools = new Map(
    (await (await connect(t, full.url, user.headers)).listTools()).tools.map((x) => [x.name, x])
  )
  const client = await connect(t, compact.url, user.headers)
  const described = await ok(client, 'describe_tool', { tool: 'create', resource: 'deals' })
  const own = fullTools.get('create_deals')!
  t.same(
    described.inputSchema.properties.record,
    (own.inputSchema.properties as any).record,
    "create_deals' record schema"
  )
  t.same(described.inputSchema.properties.resource, { const: 'deals' })
  t.same(described.outputSchema, own.outputSchema)
  const agg = await ok(client, 'describe_tool', { tool: 'aggregate', resource: 'deals', aggregation: 'byStage' })
  t.same(agg.inputSchema.properties.aggregation, { const: 'byStage' })
  t.same(
    agg.inputSchema.properties.minAmount,
    (fullTools.get('aggregate_deals_byStage')!.inputSchema.properties as any).minAmount,
    'its params'
  )
  t.match(
    await fails(client, 'describe_tool', { tool: 'aggregate', resource: 'deals', aggregation: 'total' }),
    { code: 'VALIDATION', details: { field: 'aggregation' } },
    'an unsafe aggregation is not described to a plain user'
  )

  // An api client: read actions only, on the schemas scoped for its role.
  const clientId = (await new ApiClientStore(compact.app.svc.db).create({ role: 'public' }))._id
  const shop = await connect(t, compact.url, { 'x-client-id': clientId })
  const names = await toolNames(shop)
  t.same(names, ['describe_tool', 'get', 'list', 'list_resources'])
  const list = (await shop.listTools()).tools.find((x) => x.name === 'list')!
  t.same((list.inputSchema.properties as any).resource.enum, ['products'])
  t.match(await fails(shop, 'list', { resource: 'deals' }), { code: 'VALIDATION', details: { field: 'resource' } })
  t.match(
    await fails(shop, 'create', { resource: 'products', record: { name: 'x' } }),
    { code: 'VALIDATION', details: { field: 'tool' } },
    'no write action for an api client'
  )
})

t.test('readOnly: only the tools that change nothing', async (t) => {
  const { url } = await buildApp(t, { mcp: { readOnly: true } })
  const client = await connect(t, url, makeUser().headers)
  const names = await toolNames(client)
  t.notOk(
    names.some((n) => /^(create|update|delete|restore|upload)_/.test(n)),
    'no write tool'
  )
  t.ok(names.includes('list_deals') && names.includes('history_deals') && names.includes('aggregate_deals_byStage'))
  await t.rejects(
    client.callTool({ name: 'create_deals', arguments: { record: { title: 'x', amount: 1 } } }),
    McpError,
    'a write tool is unknown'
  )
  const compact = await buildApp(t, { mcp: { readOnly: true, tools: 'compact' } })
  t.same(await toolNames(await connect(t, compact.url, makeUser().headers)), [
    'aggregate',
    'describe_tool',
    'get',
    'get_related',
    'history',
    'list',
    'list_related',
    'list_resources',
    'search'
  ])
})

t.test('exclude: a schema offered no tool; an unknown name stops start-up', async (t) => {
  const { url } = await buildApp(t, { mcp: { exclude: ['logs', 'products'] } })
  const client = await connect(t, url, makeUser().headers)
  const names = await toolNames(client)
  t.notOk(names.some((n) => n.endsWith('_logs') || n.endsWith('_products')))
  t.ok(names.includes('list_deals'))
  const resources = await ok(client, 'list_resources')
  t.same(
    resources.resources.map((r: { path: string }) => r.path),
    ['companies', 'contacts', 'deals']
  )
  await t.rejects(buildApp(t, { mcp: { exclude: ['dealz'] } }), /exclude.*'dealz'.*known: companies, contacts, deals/)
  await t.rejects(buildApp(t, { mcp: { tools: 'tiny' as 'compact' } }), /`tools` must be 'full' or 'compact'/)
})

t.test('compact: an argument named like a selector stops start-up', async (t) => {
  const schemas = [
    {
      path: 'stats',
      fields: [{ name: 'n', type: Number }],
      aggregations: [
        { name: 'sum', pipeline: [], params: [{ name: 'resource', type: 'String', match: { n: '$resource' } }] }
      ]
    }
  ]
  await t.rejects(buildApp(t, { schemas, mcp: { tools: 'compact' } }), /aggregate_stats_sum has an argument 'resource'/)
  const { url } = await buildApp(t, { schemas })
  t.ok(
    (await toolNames(await connect(t, url, makeUser().headers))).includes('aggregate_stats_sum'),
    'full mode is unaffected'
  )
})

t.test('options of the wrong type stop start-up, naming the option', async (t) => {
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ readOnly: 'yes' }, /`readOnly` must be a boolean/],
    [{ exclude: 'logs' }, /`exclude` must be an array of schema paths/],
    [{ exclude: ['logs', 3] }, /`exclude` must be an array of schema paths/],
    [{ shutdownGraceMs: -1 }, /`shutdownGraceMs` must be an integer >= 0/],
    [{ maxResultChars: 10 }, /`maxResultChars` must be an integer >= 1000/],
    [{ path: 'mcp' }, /`path` must be a URL path/]
  ]
  for (const [mcp, message] of bad) await t.rejects(buildApp(t, { mcp: mcp as any }), message, JSON.stringify(mcp))
})
