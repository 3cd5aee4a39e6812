import t from 'tap'
import { type UsageStore } from '@svc/core'
import { memoryUsageStore } from '@svc/core/kit'
import { bearer, buildApp, testDb } from './helper.js'

// Issue 27: a host that shares counters without Redis (the reference server's cluster workers
// count in their primary) passes its own store; rate limits and cost budgets both use it.
t.test('usageStore: the counters of every budget go to the store the host passes', async (t) => {
  const inner = memoryUsageStore()
  const keys: string[] = []
  const store: UsageStore = {
    add: async (key, amount, windowMs) => {
      keys.push(key)
      return await inner.add(key, amount, windowMs)
    }
  }
  const app = await buildApp(t, await testDb(t), { usageStore: store, rateLimit: { apiPerMin: 2 } })
  t.equal(app.svcSurface.usageStore, store, 'exposed for @svc/core as costStore')
  const codes = []
  for (let i = 0; i < 3; i++) {
    codes.push(
      (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer('65f0000000000000000000a1') }))
        .statusCode
    )
  }
  t.same(codes, [200, 200, 429], 'the limit counted in the passed store')
  t.ok(
    keys.some((k) => k.startsWith('rl:')),
    'rate-limit keys went to it'
  )
})
