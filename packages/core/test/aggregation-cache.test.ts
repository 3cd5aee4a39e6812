import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { memoryAggregationCache, type AggregationCache, type AggregationResult } from '../src/index.js'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

async function total (app: FastifyInstance, u: TestUser): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/deals/aggregations/total?stage=open', headers: u.headers })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().results[0]?.total ?? 0
}

async function seed (app: FastifyInstance, u: TestUser, amount: number): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/deals', headers: u.headers, payload: { title: 't', amount, stage: 'open' } })
  if (res.statusCode !== 201) throw new Error(res.body)
}

t.test('a host-supplied store: keys per schema, aggregation, tenant, roles and params; TTL passed', async (t) => {
  const inner = memoryAggregationCache()
  const calls: Array<{ op: string, key: string, ttl?: number }> = []
  const store: AggregationCache = {
    get: async (key) => { calls.push({ op: 'get', key }); return await inner.get(key) },
    set: async (key, value, ttl) => { calls.push({ op: 'set', key, ttl }); await inner.set(key, value, ttl) }
  }
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas(), options: { aggregationCache: store } })
  const alice = makeUser()
  const aliceAdmin = makeUser({ user_id: alice.userId, roles: ['admin', 'user'] })
  await seed(app, alice, 10)
  t.equal(await total(app, alice), 10)
  await seed(app, alice, 5)
  t.equal(await total(app, alice), 10, 'from the store')
  t.equal(await total(app, aliceAdmin), 15, 'other roles, other entry')
  const sets = calls.filter((c) => c.op === 'set')
  t.equal(sets.length, 2)
  t.equal(sets[0].ttl, 60, 'the declared ttlSeconds')
  t.match(sets[0].key, new RegExp(`^v1/deals/total:.*${alice.userId}.*"user".*"stage","open"`))
  t.match(sets[1].key, /"admin","user"/, 'roles sorted into the key')
})

t.test('a failing store never fails the request', async (t) => {
  const broken: AggregationCache = {
    get: async () => { throw new Error('store down') },
    set: async (_k: string, _v: AggregationResult) => { throw new Error('store down') }
  }
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas(), options: { aggregationCache: broken } })
  const u = makeUser()
  await seed(app, u, 3)
  t.equal(await total(app, u), 3)
  await seed(app, u, 4)
  t.equal(await total(app, u), 7, 'every call runs the aggregation')
})

t.test('memoryAggregationCache expires entries after their TTL', async (t) => {
  const c = memoryAggregationCache()
  await c.set('k', { results: [1] }, 0.05)
  t.same(await c.get('k'), { results: [1] })
  await new Promise((resolve) => setTimeout(resolve, 80))
  t.equal(await c.get('k'), undefined)
})
