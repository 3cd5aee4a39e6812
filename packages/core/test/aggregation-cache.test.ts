import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { type AggregationCache, type AggregationResult } from '../src/index.js'
import { memoryAggregationCache, memoryGenerations } from '../src/kit.js'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

async function total (app: FastifyInstance, u: TestUser): Promise<number> {
  const res = await app.inject({
    method: 'GET',
    url: '/api/v1/deals/aggregations/total?stage=open',
    headers: u.headers
  })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().results[0]?.total ?? 0
}

async function seed (app: FastifyInstance, u: TestUser, amount: number): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/deals',
    headers: u.headers,
    payload: { title: 't', amount, stage: 'open' }
  })
  if (res.statusCode !== 201) throw new Error(res.body)
}

t.test('a host-supplied store: keys per schema, aggregation, tenant, roles and params; TTL passed', async (t) => {
  const inner = memoryAggregationCache()
  const calls: Array<{ op: string; key: string; ttl?: number }> = []
  const store: AggregationCache = {
    get: async (key) => {
      calls.push({ op: 'get', key })
      return await inner.get(key)
    },
    set: async (key, value, ttl) => {
      calls.push({ op: 'set', key, ttl })
      await inner.set(key, value, ttl)
    }
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
  t.match(sets[0].key, new RegExp(`^v1/deals/total@:.*${alice.userId}.*"user".*"stage","open"`))
  t.match(sets[1].key, /"admin","user"/, 'roles sorted into the key')
})

t.test('a failing store never fails the request', async (t) => {
  const broken: AggregationCache = {
    get: async () => {
      throw new Error('store down')
    },
    set: async (_k: string, _v: AggregationResult) => {
      throw new Error('store down')
    }
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

t.test('the default cache: a write through the service retires the answers it changes', async (t) => {
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas() })
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, 10)
  await seed(app, bob, 1)
  t.equal(await total(app, alice), 10)
  t.equal(await total(app, bob), 1)
  // Behind the service's back: no invalidation, so the cached answers stay.
  await app.svc.db.collection('deals').updateMany({}, { $inc: { amount: 100 } })
  t.equal(await total(app, alice), 10, 'cached')
  await seed(app, alice, 5)
  t.equal(await total(app, alice), 115, "alice's write retires her cached answer")
  t.equal(await total(app, bob), 1, "bob's answer stays cached: another tenant's write")
})

t.test('memoryGenerations: per tenant, per schema, and a floor when a counter is forgotten', async (t) => {
  const g = memoryGenerations(2)
  const a0 = await g.generation('s', 'a')
  await g.invalidate('s', 'b')
  t.equal(await g.generation('s', 'a'), a0, "b's write leaves a's generation")
  await g.invalidate('s', 'a')
  const a1 = await g.generation('s', 'a')
  t.not(a1, a0, "a's write changes it")
  await g.invalidate('s', null)
  const a2 = await g.generation('s', 'a')
  t.not(a2, a1, 'a bulk write changes every tenant')
  await g.invalidate('t', 'x')
  t.not(await g.generation('s', 'a'), a2, 'an evicted counter moves the floor for everyone')
})

t.test('a store whose generation fails is skipped, and a failed invalidation keeps the write', async (t) => {
  const inner = memoryAggregationCache()
  let gets = 0
  const store: AggregationCache = {
    get: async (key) => {
      gets++
      return await inner.get(key)
    },
    set: async (key, value, ttl) => {
      await inner.set(key, value, ttl)
    },
    generation: async () => {
      throw new Error('generations down')
    },
    invalidate: async () => {
      throw new Error('generations down')
    }
  }
  const app = await buildCoreApp(t, { schemas: makeAggregationSchemas(), options: { aggregationCache: store } })
  const u = makeUser()
  await seed(app, u, 3)
  t.equal(await total(app, u), 3)
  await seed(app, u, 4)
  t.equal(await total(app, u), 7, 'computed every time')
  t.equal(gets, 0, 'the store is not read without a generation')
})
