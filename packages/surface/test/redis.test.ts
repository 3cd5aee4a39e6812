import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import t from 'tap'
import { Redis } from 'ioredis'
import { readPrice } from '@svc/core/kit'
import { redisAggregationCache } from '../src/index.js'
import { bearer, buildApp, testDb } from './helper.js'

const REDIS_URL = 'redis://127.0.0.1:6379'
const LOGIN = { email: 'nobody@example.test', password: 'wrong password 123' }

async function redisAnswers (): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null
  })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

const redisUp = await redisAnswers()
if (!redisUp) console.error(`\n!!! SKIPPED: no Redis answers at ${REDIS_URL}: the shared-budget test did not run !!!\n`)

t.test(
  'two replicas share one budget through Redis',
  { skip: redisUp ? false : `no Redis answers at ${REDIS_URL}` },
  async (t) => {
    const db = await testDb(t)
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`
    const opts = { redis: REDIS_URL, redisKeyPrefix: prefix, rateLimit: { authPerMin: 4 }, metrics: {} }
    const a = await buildApp(t, db, opts)
    const b = await buildApp(t, db, opts)
    t.teardown(async () => {
      const cleanup = new Redis(REDIS_URL)
      const keys = await cleanup.keys(`${prefix}*`)
      if (keys.length > 0) await cleanup.del(...keys)
      cleanup.disconnect()
    })
    // ioredis connects asynchronously and refuses commands until then (no offline queue).
    await Promise.all(
      [a, b].map(async (app) => {
        if (app.svcSurface.redis?.status !== 'ready') {
          await new Promise((resolve) => app.svcSurface.redis?.once('ready', resolve))
        }
      })
    )
    const codes = []
    for (const app of [a, b, a, b, a, b]) {
      codes.push(
        (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.1.0.1' })).statusCode
      )
    }
    t.same(codes, [401, 401, 401, 401, 429, 429], 'four in total across both replicas, then 429 on either')
    const last = await b.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.1.0.1' })
    t.ok(Number(last.headers['retry-after']) > 0, 'Retry-After from the shared counter')
    t.equal(
      (await b.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.1.0.2' })).statusCode,
      401,
      'per IP'
    )
    t.notMatch((await a.inject({ method: 'GET', url: '/_metrics' })).body, /redis_errors_total\{/, 'no Redis errors')
  }
)

t.test(
  'two replicas share cached aggregation answers through Redis, per tenant and roles',
  { skip: redisUp ? false : `no Redis answers at ${REDIS_URL}` },
  async (t) => {
    const db = await testDb(t)
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`
    const a = await buildApp(t, db, { redis: REDIS_URL, redisKeyPrefix: prefix, rateLimit: false })
    const b = await buildApp(t, db, { redis: REDIS_URL, redisKeyPrefix: prefix, rateLimit: false })
    const alone = await buildApp(t, db, { rateLimit: false })
    t.teardown(async () => {
      const cleanup = new Redis(REDIS_URL)
      const keys = await cleanup.keys(`${prefix}*`)
      if (keys.length > 0) await cleanup.del(...keys)
      cleanup.disconnect()
    })
    await Promise.all(
      [a, b].map(async (app) => {
        if (app.svcSurface.redis?.status !== 'ready') {
          await new Promise((resolve) => app.svcSurface.redis?.once('ready', resolve))
        }
      })
    )
    const alice = bearer('65f0000000000000000000a1')
    const count = async (app: typeof a, headers: { authorization: string }): Promise<number> => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/notes/aggregations/count', headers })
      t.equal(res.statusCode, 200)
      return res.json().results[0]?.n ?? 0
    }
    const create = async (): Promise<void> => {
      t.equal(
        (await a.inject({ method: 'POST', url: '/api/v1/notes', headers: alice, payload: { title: 'n' } })).statusCode,
        201
      )
    }
    await create()
    t.equal(await count(a, alice), 1, 'replica A computes and stores')
    // Behind the service's back: nothing retires the cached answer.
    await db.collection('notes').insertOne({ title: 'n', userId: '65f0000000000000000000a1' })
    t.equal(await count(b, alice), 1, "replica B serves A's answer within the TTL")
    t.equal(await count(alone, alice), 2, 'a process without Redis has its own cache')
    t.equal(await count(b, bearer('65f0000000000000000000a1', ['admin'])), 2, 'other roles: another entry')
    t.equal(await count(b, bearer('65f0000000000000000000b2')), 0, 'another tenant: another entry')
    const keys = (await a.svcSurface.redis!.keys(`${prefix}agg:*`)).filter((k) => !k.startsWith(`${prefix}agg:gen:`))
    t.equal(keys.length, 3, 'three entries under the prefix (besides the generations)')
    t.ok((await a.svcSurface.redis!.pttl(keys[0])) > 50_000, 'with the declared TTL (60 s)')
    await create()
    t.equal(await count(b, alice), 3, 'a write on replica A retires the answer on replica B (shared generation)')
    t.equal(await count(b, bearer('65f0000000000000000000b2')), 0, "another tenant's answer is untouched")
    t.ok(
      await a.svcSurface.redis!.exists(`${prefix}agg:gen:v1/notes:65f0000000000000000000a1`),
      'the generation lives in Redis'
    )
  }
)

t.test(
  "two replicas share a tenant's cost budget through Redis",
  { skip: redisUp ? false : `no Redis answers at ${REDIS_URL}` },
  async (t) => {
    const db = await testDb(t)
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`
    const a = await buildApp(
      t,
      db,
      { redis: REDIS_URL, redisKeyPrefix: prefix, rateLimit: false },
      {},
      { tenantCostPerMinute: 1 }
    )
    const price = readPrice(a.svc.services.get('notes').model, a.svc.config.pageSize, [])
    const opts = { redis: REDIS_URL, redisKeyPrefix: prefix, rateLimit: false as const }
    const b = await buildApp(t, db, opts, {}, { tenantCostPerMinute: price * 3 })
    const c = await buildApp(t, db, opts, {}, { tenantCostPerMinute: price * 3 })
    t.teardown(async () => {
      const cleanup = new Redis(REDIS_URL)
      const keys = await cleanup.keys(`${prefix}*`)
      if (keys.length > 0) await cleanup.del(...keys)
      cleanup.disconnect()
    })
    await Promise.all(
      [a, b, c].map(async (app) => {
        if (app.svcSurface.redis?.status !== 'ready') {
          await new Promise((resolve) => app.svcSurface.redis?.once('ready', resolve))
        }
      })
    )
    const alice = bearer('65f0000000000000000000a1')
    const codes = []
    for (const app of [b, c, b, c]) {
      codes.push((await app.inject({ method: 'GET', url: '/api/v1/notes', headers: alice })).statusCode)
    }
    t.same(codes, [200, 200, 200, 429], 'three pages across both replicas, then 429')
    t.equal(
      (await c.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer('65f0000000000000000000b2') })).statusCode,
      200,
      'per tenant'
    )
    t.ok((await a.svcSurface.redis!.keys(`${prefix}cost:*`)).length >= 1, 'counted under the prefix')
  }
)

t.test('Redis unreachable: requests are still served, errors counted and logged once per interval', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)))
      cb()
    }
  })
  // Port 1 on loopback: nothing listens, every connect is refused at once.
  const app = await buildApp(
    t,
    await testDb(t),
    { redis: 'redis://127.0.0.1:1', rateLimit: { authPerMin: 2 }, metrics: {} },
    { logger: { level: 'warn', stream } }
  )
  const codes = []
  for (let i = 0; i < 4; i++) {
    codes.push(
      (await app.inject({ method: 'POST', url: '/login', payload: LOGIN, remoteAddress: '10.2.0.1' })).statusCode
    )
  }
  t.same(codes, [401, 401, 429, 429], 'served, and still limited per process meanwhile')
  const metrics = (await app.inject({ method: 'GET', url: '/_metrics' })).body
  // Four per-IP counts, plus the per-e-mail count of the two logins the IP budget let through.
  t.match(metrics, /redis_errors_total\{use="rate_limit"\} 6\n/, 'every failed-open call is counted')
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes/aggregations/count',
      headers: bearer('65f0000000000000000000a1')
    })
    t.equal(res.statusCode, 200, 'aggregations answer without their shared cache')
  }
  t.match(
    (await app.inject({ method: 'GET', url: '/_metrics' })).body,
    /redis_errors_total\{use="aggregation_cache"\} 2\n/,
    'the generation read per call, counted (the cache is then skipped)'
  )
  const write = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: bearer('65f0000000000000000000a1'),
    payload: { title: 'n' }
  })
  t.equal(write.statusCode, 201, 'a write stands when its invalidation fails')
  t.match(
    (await app.inject({ method: 'GET', url: '/_metrics' })).body,
    /redis_errors_total\{use="aggregation_cache"\} 3\n/,
    'the failed invalidation counted'
  )
  const warnings = lines.filter((l) => l.msg === 'redis unavailable: serving without it (fail open)')
  t.equal(warnings.length, 1, 'logged once in the interval')
})

t.test(
  'redisAggregationCache generations: per tenant, and per schema for bulk writes',
  { skip: redisUp ? false : `no Redis answers at ${REDIS_URL}` },
  async (t) => {
    const redis = new Redis(REDIS_URL)
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`
    t.teardown(async () => {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      redis.disconnect()
    })
    const cache = redisAggregationCache(redis, { prefix, onError: () => {} })
    t.equal(await cache.generation!('v1/deals', 'a'), '0.0')
    await cache.invalidate!('v1/deals', 'a')
    t.equal(await cache.generation!('v1/deals', 'a'), '0.1', "a's write")
    t.equal(await cache.generation!('v1/deals', 'b'), '0.0', "b's answers untouched")
    await cache.invalidate!('v1/deals', null)
    t.equal(await cache.generation!('v1/deals', 'b'), '1.0', 'a bulk write retires every tenant')
  }
)

t.test('redisAggregationCache without Redis: a get misses and a set is dropped, both reported', async (t) => {
  const down = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null
  })
  down.on('error', () => {})
  t.teardown(() => {
    down.disconnect()
  })
  const errors: unknown[] = []
  const cache = redisAggregationCache(down, { prefix: 'x:', onError: (err) => errors.push(err) })
  t.equal(await cache.get('k'), undefined)
  await cache.set('k', { results: [] }, 1)
  t.equal(errors.length, 2)
})
