import t from 'tap'
import { buildApp, eventually, makeUser, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'
import { startSlowReceiver } from './fixtures/slow-receiver.js'

// Issue 21: one tenant's receiver answers 200 after 9 s to hundreds of events; another tenant's
// deliveries must not wait behind it. Real receivers, the shipped timeouts and limits.

const SLOW_MS = 9000

function percentile (xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]
}

t.test('a slow tenant delays only its own deliveries; its slow successes count against it', async (t) => {
  const slow = await startSlowReceiver(SLOW_MS)
  t.teardown(async () => await slow.stop())
  const { app, db } = await buildApp(t, { webhooks: { retrySchedule: [1, 5, 30] } })
  const attacker = makeUser()
  const victim = makeUser()
  const fast = await startReceiver(t)
  const slowSub = await subscribe(app, attacker, slow.url, ['logs.*'])
  await subscribe(app, victim, fast.url, ['logs.*'])
  const ctx: any = { identity: { kind: 'user', userId: attacker.userId, roles: ['user'] }, surface: 'graphql' }
  await app.svc.services.get('logs').createMany(
    ctx,
    Array.from({ length: 300 }, (_, i) => ({ line: `flood ${i}` }))
  )
  await eventually(async () => slow.count() >= 1)

  // The victim writes for a little longer than one slow answer, so its deliveries overlap the
  // attack's first slow successes and what follows them.
  const answered = new Map<string, number>()
  const started = Date.now()
  while (Date.now() - started < SLOW_MS + 1500) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/logs',
      headers: victim.headers,
      payload: { line: 'urgent' }
    })
    answered.set(res.json()._id, Date.now())
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  await fast.waitFor(answered.size, 10_000)
  const lags = fast.received.map((r) => r.at - answered.get(r.body.recordId)!)
  const p50 = percentile(lags, 0.5)
  const p99 = percentile(lags, 0.99)
  // Waiting behind the attack costs a whole slow answer (9 s, 27.6 s in the report that found it);
  // a calm machine delivers in tens of ms, a loaded CI machine (load average 20 seen) in about 1 s.
  t.ok(p50 < SLOW_MS / 4, `the other tenant's delivery p50 ${p50} ms under a quarter of one slow answer`)
  t.ok(
    p99 < SLOW_MS / 3,
    `the other tenant's delivery p99 ${p99} ms (${lags.length} deliveries) under a third of one slow answer`
  )
  t.equal(fast.received.length, answered.size, 'each of its events delivered once')

  t.ok(
    slow.maxOpen() <= 8,
    `the slow subscription never held more than its 8 attempts at once (held ${slow.maxOpen()})`
  )
  const rows = await eventually(async () => {
    const r = await db.collection('webhook_deliveries').find({ subscriptionId: slowSub._id }).toArray()
    return r.length > 0 && r
  })
  t.ok(
    rows.every(
      (r) => r.status === 'success' && /^slow: answered in \d+ ms, over the 5000 ms latency budget$/.test(r.error)
    ),
    'slow successes are delivered and marked slow'
  )
  const sub = (
    await app.inject({ method: 'GET', url: `/api/v1/webhooks/${slowSub._id}`, headers: attacker.headers })
  ).json()
  t.ok(sub.failureCount >= 1, `they count against the subscription (failureCount ${sub.failureCount})`)
  t.not(sub.lastDeliveryAt, null, 'yet each was a delivery')
  t.ok(slow.count() < 20, `the attack got a trickle, not the workers (${slow.count()} attempts started)`)
  await slow.stop()
})
