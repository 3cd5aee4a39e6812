import t from 'tap'
import { filterableFields } from '@svc/core/kit'
import { buildApp, connect, makeUser, ok, toolNames } from './helper.js'

// tools/list follows the registry and the loaded plugins: a tool a schema's features do not
// allow is absent, not refused at call time.

const EVERY_SCHEMA = ['companies', 'contacts', 'deals', 'products', 'logs']
const CORE = (p: string): string[] => [`list_${p}`, `get_${p}`, `create_${p}`, `update_${p}`, `delete_${p}`]

function expected (opts: { softDelete: boolean; audit: boolean; admin?: boolean }): string[] {
  const names = ['list_resources', ...EVERY_SCHEMA.flatMap(CORE)]
  // Searchable fields only on companies and contacts.
  names.push('search_companies', 'search_contacts')
  // Relations: hasMany → list_, belongsTo/hasOne → get_.
  names.push('list_companies_contacts', 'get_companies_primaryContact', 'get_contacts_company')
  // Aggregations; the unsafe one only for deals' acl.list role.
  names.push('aggregate_deals_byStage', ...(opts.admin === true ? ['aggregate_deals_total'] : []))
  // logs has softDelete: false and audit: false.
  if (opts.softDelete) names.push(...['companies', 'contacts', 'deals', 'products'].map((p) => `restore_${p}`))
  if (opts.audit) names.push(...['companies', 'contacts', 'deals', 'products'].map((p) => `history_${p}`))
  return names.sort()
}

t.test('feature combinations decide which tools exist', async (t) => {
  const user = makeUser()
  for (const [softDelete, audit] of [
    [true, true],
    [false, true],
    [true, false],
    [false, false]
  ]) {
    const { url } = await buildApp(t, { softDelete, audit })
    const client = await connect(t, url, user.headers)
    t.same(
      await toolNames(client),
      expected({ softDelete, audit }),
      `softDelete ${String(softDelete)}, audit ${String(audit)}`
    )
    const list = (await client.listTools()).tools.find((x) => x.name === 'list_deals')!
    t.equal(
      'includeDeleted' in (list.inputSchema.properties ?? {}),
      softDelete,
      'includeDeleted is an argument only with soft delete'
    )
  }
})

t.test('unsafe aggregations are listed for acl.list roles only', async (t) => {
  const { url } = await buildApp(t)
  const admin = await connect(t, url, makeUser({ roles: ['user', 'admin'] }).headers)
  t.same(await toolNames(admin), expected({ softDelete: true, audit: true, admin: true }))
})

t.test('input and output schemas come from the model', async (t) => {
  const { app, url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x]))
  {
    const record = (tools.get('create_deals')!.inputSchema.properties as any).record
    t.same(record.required, ['title', 'amount'], 'required fields without a default')
    t.equal(record.additionalProperties, false, 'unknown fields are refused')
    t.same(record.properties.stage.enum, ['open', 'won', 'lost', null], 'enum (null: leave it to the default)')
    t.equal(record.properties.amount.minimum, 0, 'min')
    t.match(record.properties.closeDate, { type: ['string', 'null'], pattern: String }, 'dates are ISO 8601 strings')
    t.same(record.properties.approval.enum, ['draft', null], 'a state field can only start in its initial state')
    t.notOk('userId' in record.properties || '_id' in record.properties, 'stamped fields are not inputs')
    t.notOk('fullName' in record.properties, 'computed fields are not inputs')
  }
  {
    const update = (tools.get('update_contacts')!.inputSchema.properties as any).record
    t.equal(update.required, undefined, 'update is partial')
    t.match(update.properties.notes.description, /only by roles manager/, 'field ACL is described')
  }
  {
    const out = tools.get('get_deals')!.outputSchema as any
    t.same(out.required, ['_id', 'userId', 'createdAt', 'updatedAt'])
    t.equal(out.properties.createdAt.format, 'date-time')
    t.same(out.properties.availableTransitions.type, 'array', 'state machines expose availableTransitions')
    t.ok(out.properties.deletedAt, 'soft delete adds deletedAt')
  }
  {
    const filter = (tools.get('list_contacts')!.inputSchema.properties as any).filter
    t.same(
      filter.properties.status.anyOf[0],
      { type: 'string', enum: ['lead', 'customer'] },
      'equality on an enum field'
    )
    t.same(
      Object.keys(filter.properties.score.anyOf[1].properties).sort(),
      ['$gt', '$gte', '$in', '$lt', '$lte', '$ne'],
      'number operators'
    )
    t.ok(filter.properties.firstName.anyOf[1].properties.$regex, 'string fields take $regex')
    t.notOk('fullName' in filter.properties, 'computed fields cannot be filtered')
    // One vocabulary (issue 21): the keys core filters on, as REST and GraphQL offer them.
    t.same(
      Object.keys(filter.properties).sort(),
      filterableFields(app.svc.registry.get('v1', 'contacts')!)
        .map((f) => f.path)
        .sort(),
      "exactly core's filterable keys"
    )
    t.ok('userId' in filter.properties, 'the tenant key filters inside the tenant, as on REST')
    t.match(filter.description, /\$gte/, 'the filter syntax is explained')
  }
  {
    const agg = tools.get('aggregate_deals_byStage')!
    t.same(
      agg.inputSchema.properties,
      {
        minAmount: { type: 'number', description: 'minAmount (Number)' },
        closingAfter: { type: 'string', description: 'closingAfter: an ISO 8601 date or date-time' }
      },
      'aggregation params are typed'
    )
  }
})

t.test('annotations tell read-only from destructive tools', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x.annotations]))
  for (const name of [
    'list_deals',
    'get_deals',
    'search_contacts',
    'history_deals',
    'list_companies_contacts',
    'get_contacts_company',
    'aggregate_deals_byStage',
    'list_resources'
  ]) {
    t.match(tools.get(name), { readOnlyHint: true, openWorldHint: false }, `${name} is read-only`)
  }
  t.match(tools.get('create_deals'), { readOnlyHint: false, destructiveHint: false, idempotentHint: false })
  t.match(tools.get('update_deals'), { readOnlyHint: false, destructiveHint: true, idempotentHint: true })
  t.match(tools.get('delete_deals'), { readOnlyHint: false, destructiveHint: true })
  t.match(tools.get('restore_deals'), { readOnlyHint: false, destructiveHint: false })
})

t.test('_describe lists the tools generated for each schema', async (t) => {
  const { app } = await buildApp(t)
  const res = await app.inject({ method: 'GET', url: '/_describe' })
  const schemas = new Map((res.json().schemas as any[]).map((s) => [s.path, s.endpoints.mcp]))
  t.same(schemas.get('logs'), CORE('logs'), 'logs: soft delete and audit off')
  t.same(
    [...schemas.get('deals')].sort(),
    [...CORE('deals'), 'restore_deals', 'history_deals', 'aggregate_deals_byStage', 'aggregate_deals_total'].sort(),
    'every tool, the restricted one included'
  )
  t.same(schemas.get('contacts'), [
    'list_contacts',
    'get_contacts',
    'search_contacts',
    'restore_contacts',
    'history_contacts',
    'create_contacts',
    'update_contacts',
    'delete_contacts',
    'get_contacts_company'
  ])
})

t.test('list_resources describes what the caller can use', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const { resources } = await ok(client, 'list_resources')
  t.same(
    resources.map((r: any) => r.path),
    EVERY_SCHEMA
  )
  const contacts = resources.find((r: any) => r.path === 'contacts')
  t.notOk(
    contacts.fields.some((f: any) => f.name === 'notes'),
    'a field the caller cannot read is left out'
  )
  t.match(
    contacts.fields.find((f: any) => f.name === 'fullName'),
    { type: 'String', notes: /computed/ }
  )
  t.same(contacts.relations, { company: { kind: 'belongsTo', target: 'companies', fk: 'companyId' } })
  t.ok(contacts.tools.includes('search_contacts'))
  const manager = await connect(t, url, makeUser({ roles: ['manager'] }).headers)
  const seen = (await ok(manager, 'list_resources')).resources.find((r: any) => r.path === 'contacts')
  t.ok(
    seen.fields.some((f: any) => f.name === 'notes'),
    'a manager sees notes'
  )
})
