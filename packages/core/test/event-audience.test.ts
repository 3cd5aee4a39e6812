import t from 'tap'
import { type RequestContext } from '../src/index.js'
import { ApiClientStore, checkEventPatterns, checkFeedPatterns, eventTypeMatches } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

// service.eventAudience(ctx): the list rule as an in-memory test, for live feeds (@svc/realtime).

const schemas = [
  {
    path: 'items',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'price', type: Number },
      { name: 'tags', type: [String] },
      { name: 'launchedAt', type: Date },
      { name: 'secret', type: String, acl: { read: ['staff'] } }
    ],
    acl: {
      list: ['admin'],
      scope: {
        storefront: { price: { $gte: 10 } },
        dated: { launchedAt: { $lt: '2030-01-01T00:00:00.000Z' }, tags: 'sale' },
        pattern: { name: { $regex: '^a', $options: 'i' }, tags: { $in: ['x', 'y'] } }
      }
    }
  }
]

t.test('the audience test agrees with the list for every identity and record', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('items')
  const clients = new ApiClientStore(app.svc.db)
  const alice = makeUser({ account_id: 'org-a' })
  const bob = makeUser({ account_id: 'org-b' })
  const rows = [
    [alice, { name: 'apple', price: 12, tags: ['sale', 'x'], launchedAt: '2024-01-01T00:00:00.000Z' }],
    [alice, { name: 'Avocado', price: 5, tags: ['y'], launchedAt: '2031-01-01T00:00:00.000Z' }],
    [bob, { name: 'banana', price: 30, tags: ['sale'], launchedAt: '2029-12-31T23:59:59.999Z' }],
    [bob, { name: 'almond', price: 10, tags: [] }]
  ] as const
  for (const [user, body] of rows) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/items', headers: user.headers, payload: body })
    t.equal(res.statusCode, 201)
  }
  const records = (await app.svc.db.collection(service.model.collection).find({}).toArray()).map((d) =>
    JSON.parse(JSON.stringify({ ...d, _id: String(d._id) }))
  )
  const callers: Array<[string, Record<string, string>]> = [
    ['alice', alice.headers],
    ['bob', bob.headers],
    ['admin', makeUser({ roles: ['admin'] }).headers],
    ['org admin', makeUser({ roles: ['admin'], account_id: 'org-a' }).headers],
    ['storefront', { 'x-client-id': (await clients.create({ role: 'storefront' }))._id }],
    ['owned storefront', { 'x-client-id': (await clients.create({ role: 'storefront', ownerId: bob.userId }))._id }],
    ['dated', { 'x-client-id': (await clients.create({ role: 'dated' }))._id }],
    ['pattern', { 'x-client-id': (await clients.create({ role: 'pattern' }))._id }]
  ]
  for (const [who, headers] of callers) {
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/items?__perPage=200', headers }))
      .json()
      .results.map((r: any) => r.name)
      .sort()
    const identity = await app.svc.auth.identify(headers, { allowClient: true })
    const ctx: RequestContext = { identity, surface: 'rest' }
    const audience = service.eventAudience(ctx)
    if (audience === null) throw new Error(`${who}: no audience`)
    const seen = records
      .filter((r) => audience.sees({ userId: r.userId, record: r }))
      .map((r) => r.name)
      .sort()
    t.same(seen, listed, `${who}: the feed admits exactly what the list shows`)
  }
})

t.test('tenant, readable fields, closed schemas and bulk events', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: [...schemas, { path: 'notes', fields: [{ name: 'text', type: String }] }]
  })
  const alice = makeUser()
  const ctx = (identity: any): RequestContext => ({ identity, surface: 'rest' })
  const items = app.svc.services.get('items')
  const own = items.eventAudience(ctx({ kind: 'user', userId: alice.userId, roles: ['user'] }))!
  t.equal(own.tenant, alice.userId, 'a user sees one tenant')
  t.ok(own.sees({ userId: alice.userId }), 'its own bulk events')
  t.notOk(own.sees({ userId: 'someone-else' }))
  t.ok(own.readable !== null && !own.readable.has('secret') && own.readable.has('name'), 'readable fields of its roles')
  const staff = items.eventAudience(ctx({ kind: 'user', userId: alice.userId, roles: ['staff'] }))!
  t.ok(staff.readable?.has('secret'), 'staff reads the secret')
  const admin = items.eventAudience(ctx({ kind: 'user', userId: alice.userId, roles: ['admin'] }))!
  t.equal(admin.tenant, null, 'an acl.list role sees every tenant')
  t.ok(admin.sees({ userId: 'anyone' }))
  const orgAdmin = items.eventAudience(ctx({ kind: 'user', userId: alice.userId, roles: ['admin'], accountId: 'o' }))!
  t.notOk(
    orgAdmin.sees({ userId: alice.userId }),
    'an org-bound admin gets no bulk event it cannot place in its organisation'
  )
  const client = ctx({ kind: 'client', userId: null, roles: ['storefront'], clientId: 'c' })
  t.equal(
    app.svc.services.get('notes').eventAudience(client),
    null,
    'a schema without a scope for the client is closed'
  )
  t.notOk(items.eventAudience(client)!.sees({ userId: 'x' }), 'an api client gets no bulk event')
  t.throws(() => items.eventAudience({ identity: null, surface: 'rest' }), { code: 'UNAUTHENTICATED' })
})

t.test("event patterns: the webhook syntax, and a feed's check against the loaded schemas", async (t) => {
  t.ok(eventTypeMatches(['*'], 'a.created'))
  t.ok(eventTypeMatches(['a.*'], 'a.deleted'))
  t.notOk(eventTypeMatches(['a.*'], 'ab.deleted'))
  t.notOk(eventTypeMatches(['a.created'], 'a.updated'))
  t.doesNotThrow(() => {
    checkEventPatterns(['*', 'a.*', 'a.created', 'webhook.test'])
  })
  t.throws(
    () => {
      checkEventPatterns(['a', 'a.*.b', '**'])
    },
    { code: 'VALIDATION', details: { field: 'events', invalid: ['a', 'a.*.b', '**'] } }
  )
  const paths = new Set(['orders', 'order-items'])
  t.same([...checkFeedPatterns(['*'], paths)].sort(), ['order-items', 'orders'])
  t.same([...checkFeedPatterns(['orders.created', 'orders.*'], paths)], ['orders'])
  for (const bad of ['order.*', 'webhook.test', 'orders.restored', 'orders', '']) {
    t.throws(() => checkFeedPatterns([bad], paths), { code: 'VALIDATION', details: { field: 'types' } }, `'${bad}'`)
  }
})
