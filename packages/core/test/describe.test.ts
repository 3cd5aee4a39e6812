import t from 'tap'
import fp from 'fastify-plugin'
import Fastify, { type FastifyInstance } from 'fastify'
import { getTestDb } from '@svc/testkit'
import svcCore from '../src/index.js'
import { buildCoreApp, JWT_SECRET, makeUser } from './helper.js'

const FEATURE_KEYS = [
  'aggregations',
  'audit',
  'files',
  'idempotency',
  'realtime',
  'relations',
  'search',
  'softDelete',
  'stateMachines',
  'webhooks'
]
const SCHEMA_KEYS = [
  'path',
  'collection',
  'softDelete',
  'audit',
  'fields',
  'relations',
  'aggregations',
  'stateMachines',
  'fileFields',
  'acl',
  'endpoints'
]

async function describe (app: FastifyInstance, headers: Record<string, string> = {}): Promise<any> {
  const res = await app.inject({ method: 'GET', url: '/_describe', headers })
  if (res.statusCode !== 200) throw new Error(`GET /_describe: ${res.statusCode} ${res.body}`)
  return res.json()
}

t.test('GET /_describe is public and has the spec shape (example CRM, core only)', async (t) => {
  const app = await buildCoreApp(t)
  const m = await describe(app)
  t.same(Object.keys(m).sort(), ['auth', 'features', 'schemas', 'version'], 'top-level keys')
  t.equal(m.version, 'v1')
  t.same(Object.keys(m.features).sort(), FEATURE_KEYS)
  t.ok(
    Object.values(m.features).every((v) => typeof v === 'boolean'),
    'features are booleans'
  )
  t.same(m.features, {
    softDelete: false, // plugin not loaded
    audit: false, // plugin not loaded
    search: true,
    files: false,
    relations: true,
    aggregations: true,
    idempotency: true,
    stateMachines: true,
    webhooks: false,
    realtime: false // plugin not loaded
  })
  t.same(m.auth, {
    endpoints: {
      register: '/register',
      login: '/login',
      refresh: '/auth/refresh',
      forgotPassword: '/auth/forgot-password',
      resetPassword: '/auth/reset-password'
    },
    tokenType: 'Bearer',
    tokenTtl: 900
  })
  t.same(m.schemas.map((s: any) => s.path).sort(), ['companies', 'contacts', 'deals', 'notes', 'products', 'tasks'])
  for (const s of m.schemas) {
    for (const k of SCHEMA_KEYS) t.ok(k in s, `${s.path}: ${k}`)
    t.equal(s.softDelete, false, `${s.path}: soft delete not effective without @svc/softdelete`)
    t.equal(s.audit, false, `${s.path}: audit not effective without @svc/audit`)
    for (const f of s.fields) {
      t.match(
        f,
        { name: String, type: String, required: Boolean, stamped: Boolean, searchable: Boolean, computed: Boolean },
        `${s.path}.${f.name as string}`
      )
    }
    t.same(s.endpoints.graphql, { queries: [], mutations: [] }, 'no GraphQL until that plugin is loaded')
    t.same(s.endpoints.mcp, [], 'no MCP until that plugin is loaded')
  }

  const deals = m.schemas.find((s: any) => s.path === 'deals')
  t.same(
    deals.endpoints.rest,
    [
      { method: 'POST', path: '/api/v1/deals', idempotent: true },
      { method: 'GET', path: '/api/v1/deals' },
      { method: 'PUT', path: '/api/v1/deals' },
      { method: 'GET', path: '/api/v1/deals-schema' },
      { method: 'GET', path: '/api/v1/deals/aggregations/byStage' },
      { method: 'GET', path: '/api/v1/deals/:id' },
      { method: 'PUT', path: '/api/v1/deals/:id' },
      { method: 'DELETE', path: '/api/v1/deals/:id' }
    ],
    'only the routes registered: no restore, no history without the plugins'
  )
  t.match(deals.stateMachines.approval, { initial: 'draft', states: Array, transitions: Object })
  t.notOk('onEnter' in deals.stateMachines.approval, 'onEnter functions are not described')
  t.match(deals.aggregations[0], {
    name: 'byStage',
    description: String,
    params: [
      { name: 'minAmount', type: 'Number' },
      { name: 'closingAfter', type: 'date' }
    ]
  })
  t.notOk('pipeline' in deals.aggregations[0], 'pipelines stay server-side')
  t.same(deals.relations.company, { kind: 'belongsTo', target: 'companies', fk: 'companyId' })

  const contacts = m.schemas.find((s: any) => s.path === 'contacts')
  t.match(
    contacts.fields.find((f: any) => f.name === 'internalNotes'),
    { type: 'String', acl: { read: ['admin', 'manager'] } },
    "a field-ACL'd field is still listed, with its roles"
  )
  t.notOk('hooks' in contacts, 'hooks are not described')

  // With a bearer, or a bad one: same answer, no authentication on this route.
  t.same(await describe(app, { authorization: 'Bearer nonsense' }), m, 'a bad bearer is ignored')
})

t.test('<path>-schema and _describe.schemas[i] are the same description', async (t) => {
  const app = await buildCoreApp(t)
  const m = await describe(app)
  const u = makeUser()
  for (const s of m.schemas) {
    const res = await app.inject({ method: 'GET', url: `/api/v1/${s.path as string}-schema`, headers: u.headers })
    t.equal(res.statusCode, 200, `GET /api/v1/${s.path as string}-schema`)
    t.same(res.json(), s, `${s.path as string}: identical`)
  }
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/deals-schema' })
  t.equal(anonymous.statusCode, 401, '<path>-schema still needs a bearer')
})

const SECRET_FILTER = 'scope-filter-value-9f3a'
const HOOK_MARK = 'hook-source-mark-51c2'
const COMPUTED_MARK = 'computed-source-mark-77d0'
const WEBHOOK_SECRET = 'webhook-secret-0d4e'

function thingSchemas (): unknown[] {
  return [
    {
      path: 'things',
      fields: [
        { name: 'title', type: String, required: true },
        { name: 'count', type: Number },
        { name: 'done', type: Boolean },
        { name: 'due', type: Date },
        { name: 'tags', type: [String] },
        { name: 'extra', type: 'Mixed' },
        { name: 'avatar', type: 'File' },
        { name: 'address', type: { city: String } },
        { name: 'salary', type: Number, acl: { read: ['hr'], update: ['hr'] } },
        { name: 'label', type: String, computed: (r: Record<string, unknown>) => `${String(r.title)}-${COMPUTED_MARK}` }
      ],
      softDelete: false,
      audit: false,
      acl: { list: ['admin'], delete: ['admin'], scope: { public: { title: SECRET_FILTER } } },
      hooks: { beforeCreate: ({ input }: { input: object }) => ({ ...input, note: 'hook-source-mark-51c2' }) },
      webhooks: {
        events: ['things.created'],
        endpoints: [{ url: 'https://example.test/hook', secret: WEBHOOK_SECRET }]
      }
    }
  ]
}

t.test('field types, stamped fields and what is never exposed', async (t) => {
  const app = await buildCoreApp(t, { schemas: thingSchemas() })
  const res = await app.inject({ method: 'GET', url: '/_describe' })
  const m = res.json()
  t.same(
    m.features,
    {
      softDelete: false,
      audit: false,
      search: false,
      files: false,
      relations: false,
      aggregations: false,
      idempotency: true,
      stateMachines: false,
      webhooks: false,
      realtime: false
    },
    'features no schema uses are false'
  )
  const [things] = m.schemas
  t.same(
    things.fields.map((f: any) => [f.name, f.type, f.required, f.stamped]),
    [
      ['title', 'String', true, false],
      ['count', 'Number', false, false],
      ['done', 'Boolean', false, false],
      ['due', 'date', false, false],
      ['tags', '[String]', false, false],
      ['extra', 'Mixed', false, false],
      ['avatar', 'File', false, false],
      ['address', 'Object', false, false],
      ['salary', 'Number', false, false],
      ['label', 'String', false, false],
      ['_id', 'String', true, true],
      ['userId', 'String', true, true],
      ['accountId', 'String', false, true],
      ['createdAt', 'date', true, true],
      ['updatedAt', 'date', true, true]
    ],
    'types as the spec writes them; stamped fields listed, no deletedAt when soft delete is off'
  )
  t.match(
    things.fields.find((f: any) => f.name === 'salary'),
    { acl: { read: ['hr'], update: ['hr'] } },
    "field-ACL'd fields are listed"
  )
  t.match(
    things.fields.find((f: any) => f.name === 'label'),
    { computed: true }
  )
  t.same(things.fileFields, ['avatar'])
  t.same(things.acl, { list: ['admin'], delete: ['admin'], scopeRoles: ['public'] }, 'scope roles named, filters not')
  t.notOk(
    things.endpoints.rest.some((e: any) => /restore|history/.test(e.path)),
    'no restore/history routes when the schema opts out'
  )
  for (const mark of [SECRET_FILTER, HOOK_MARK, COMPUTED_MARK, WEBHOOK_SECRET, 'beforeCreate']) {
    t.notOk(res.body.includes(mark), `the manifest never contains ${mark}`)
  }
})

t.test('plugins registered after core count: features, routes and contributed operations', async (t) => {
  // A stand-in for a files/MCP plugin: sets its flag, registers a route, names its tools.
  const fakeFiles = fp(
    async (app: FastifyInstance) => {
      app.svc.features.files = true
      app.svc.features.webhooks = true
      await app.register(async (child) => {
        child.post('/api/v1/things/:id/avatar', async () => ({}))
        child.get('/api/v1/things/:id/avatar', async () => ({}))
      })
      app.svc.manifest.contribute((model) => ({
        mcp: [`list_${model.path}`],
        graphql: { queries: [`${model.path}ById`] }
      }))
    },
    { name: 'fake-files', dependencies: ['@svc/core'] }
  )
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: thingSchemas() })
  await app.register(fakeFiles)
  await app.ready()
  const m = await describe(app)
  t.equal(m.features.files, true, 'files: plugin loaded and a File field exists')
  t.equal(m.features.webhooks, true)
  const [things] = m.schemas
  t.match(
    things.endpoints.rest,
    [
      {},
      {},
      {},
      {},
      {},
      {},
      {},
      { method: 'POST', path: '/api/v1/things/:id/avatar' },
      { method: 'GET', path: '/api/v1/things/:id/avatar' }
    ],
    'routes registered by a later plugin are listed'
  )
  t.same(things.endpoints.graphql, { queries: ['thingsById'], mutations: [] })
  t.same(things.endpoints.mcp, ['list_things'])
})
