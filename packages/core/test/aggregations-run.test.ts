import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

async function seed (app: FastifyInstance, u: TestUser, rows: Array<Record<string, unknown>>): Promise<void> {
  for (const payload of rows) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/deals', headers: u.headers, payload })
    if (res.statusCode !== 201) throw new Error(res.body)
  }
}

async function agg (
  app: FastifyInstance,
  u: TestUser,
  name: string,
  query: Record<string, string> = {}
): Promise<{ status: number; body: any }> {
  const qs = new URLSearchParams(query).toString()
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/deals/aggregations/${name}${qs === '' ? '' : '?' + qs}`,
    headers: u.headers
  })
  return { status: res.statusCode, body: res.json() }
}

const ALICE_ROWS = [
  { title: 'a', amount: 10, stage: 'open', owner: 'Ann', closeDate: '2024-01-01', hot: true },
  { title: 'b', amount: 20, stage: 'open', owner: 'bob', closeDate: '2024-06-01' },
  { title: 'c', amount: 30, stage: 'won', owner: 'ann', closeDate: '2024-09-01', hot: true }
]

t.test('declared params are cast and substituted; results are tenant-scoped', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, ALICE_ROWS)
  await seed(app, bob, [{ title: 'x', amount: 1000, stage: 'lost' }])
  {
    const { status, body } = await agg(app, alice, 'byStage')
    t.equal(status, 200)
    t.same(
      body,
      {
        results: [
          { _id: 'open', total: 30, count: 2 },
          { _id: 'won', total: 30, count: 1 }
        ]
      },
      "only alice's rows"
    )
  }
  t.same(
    (await agg(app, alice, 'byStage', { minAmount: '20' })).body.results,
    [
      { _id: 'open', total: 20, count: 1 },
      { _id: 'won', total: 30, count: 1 }
    ],
    'Number param'
  )
  t.same(
    (await agg(app, alice, 'byStage', { owner: 'ANN' })).body.results.map((r: any) => r.count),
    [1, 1],
    'String param lowercased for a lowercase field'
  )
  t.same(
    (await agg(app, alice, 'byStage', { since: '2024-05-01' })).body.results.map((r: any) => r._id),
    ['open', 'won'],
    'Date param'
  )
  t.same(
    (await agg(app, alice, 'byStage', { hot: 'true', minAmount: '15' })).body.results,
    [{ _id: 'won', total: 30, count: 1 }],
    'params combine'
  )
  t.same(
    (await agg(app, bob, 'byStage')).body.results,
    [{ _id: 'lost', total: 1000, count: 1 }],
    "bob sees only bob's rows"
  )
  const total = await agg(app, alice, 'total', { stage: 'open' })
  t.equal(total.body.results[0].total, 30)
  t.equal(typeof total.body.results[0].ids[0], 'string', 'ObjectIds come back as hex strings')
})

t.test('wrong, missing, unknown and injected params', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const alice = makeUser()
  await seed(app, alice, ALICE_ROWS)
  const bad: Array<[string, Record<string, string>, string]> = [
    ['byStage', { minAmount: 'lots' }, 'minAmount'],
    ['byStage', { minAmount: '{"$gt":0}' }, 'minAmount'],
    ['byStage', { since: 'yesterday' }, 'since'],
    ['byStage', { hot: 'yes' }, 'hot'],
    ['byStage', { nope: '1' }, 'nope'],
    ['total', {}, 'stage']
  ]
  for (const [name, query, field] of bad) {
    const { status, body } = await agg(app, alice, name, query)
    t.equal(status, 400, `${name} ${JSON.stringify(query)}`)
    t.equal(body.error.code, 'VALIDATION')
    t.equal(body.error.details.field, field)
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/deals/aggregations/byStage?minAmount=1&minAmount=2',
      headers: alice.headers
    })
    t.equal(res.statusCode, 400, 'a repeated param')
  }
  for (const injected of ['{"$ne":null}', '{"$gt":""}', '$userId', '{"$where":"1"}']) {
    // A String param is a value: the operator-looking text is compared literally, matching nothing.
    const { status, body } = await agg(app, alice, 'byStage', { owner: injected })
    t.equal(status, 200, `owner=${injected}`)
    t.same(body.results, [], `owner=${injected} matched literally`)
  }
  {
    const { status, body } = await agg(app, alice, 'nosuch')
    t.equal(status, 404)
    t.equal(body.error.code, 'NOT_FOUND')
  }
})

t.test('unsafe aggregations: acl.list roles only, and still tenant-scoped', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, ALICE_ROWS)
  await seed(app, bob, [{ title: 'x', amount: 1000 }])
  {
    const { status, body } = await agg(app, alice, 'everything')
    t.equal(status, 403, 'a plain user')
    t.equal(body.error.code, 'FORBIDDEN')
  }
  const manager = makeUser({ user_id: alice.userId, roles: ['manager'] })
  {
    const { status, body } = await agg(app, manager, 'everything')
    t.equal(status, 200)
    t.same(
      body.results.map((r: any) => r.amount),
      [10, 20, 30],
      "the manager's own tenant only, even when unsafe"
    )
    t.ok(body.results.every((r: any) => r.userId === alice.userId))
  }
})

t.test('tombstoned rows (service scopes) stay out of aggregations', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  app.svc.services
    .get('deals')
    .addScope(({ options }) => (options.includeDeleted === true ? undefined : { deletedAt: null }))
  const alice = makeUser()
  await seed(app, alice, ALICE_ROWS)
  await app.svc.db.collection('deals').updateOne({ title: 'c' }, { $set: { deletedAt: new Date() } })
  t.same(
    (await agg(app, alice, 'byStage')).body.results.map((r: any) => r._id),
    ['open']
  )
})

t.test('cache: per tenant and per params, for ttlSeconds', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, ALICE_ROWS)
  await seed(app, bob, [{ title: 'x', amount: 7 }])
  t.equal((await agg(app, alice, 'total', { stage: 'open' })).body.results[0].total, 30)
  // Behind the service's back: nothing retires the cached answer.
  await app.svc.db.collection('deals').updateOne({ title: 'a' }, { $inc: { amount: 5 } })
  t.equal(
    (await agg(app, alice, 'total', { stage: 'open' })).body.results[0].total,
    30,
    'served from the cache within the TTL'
  )
  await seed(app, alice, [{ title: 'e', amount: 0 }])
  t.equal(
    (await agg(app, alice, 'total', { stage: 'open' })).body.results[0].total,
    35,
    'a write through the service retires it'
  )
  t.equal(
    (await agg(app, bob, 'total', { stage: 'open' })).body.results[0].total,
    7,
    "another tenant never gets alice's cached answer"
  )
  t.same((await agg(app, alice, 'total', { stage: 'won' })).body.results[0].total, 30, 'other params, other entry')
  const uncached = await agg(app, alice, 'byStage')
  t.equal(uncached.body.results[0].total, 35, 'an aggregation without cache is always fresh')
})

t.test('api clients cannot run aggregations; the manifest lists them with params', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const u = makeUser()
  const res = await app.inject({ method: 'GET', url: '/api/v1/deals-schema', headers: u.headers })
  t.same(res.json().aggregations[0], {
    name: 'byStage',
    description: 'Deal count and total per stage',
    params: [
      { name: 'minAmount', type: 'Number', required: false },
      { name: 'owner', type: 'String', required: false },
      { name: 'since', type: 'date', required: false },
      { name: 'hot', type: 'Boolean', required: false }
    ],
    unsafe: false
  })
  t.match(res.json().aggregations[1], {
    name: 'total',
    params: [{ name: 'stage', type: 'String', required: true }],
    cache: { ttlSeconds: 60 }
  })
  const ctx = { identity: { kind: 'client' as const, userId: null, roles: ['public'] }, surface: 'system' as const }
  await t.rejects(app.svc.services.get('deals').aggregations.run(ctx, 'byStage'), { statusCode: 403 } as any)
})
