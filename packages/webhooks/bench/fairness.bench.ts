// Issue 21's fairness figure: one tenant's receiver answers 200 after BENCH_SLOW_MS (9000) to
// BENCH_FLOOD (300) events while another tenant writes a record every 100 ms; printed: the other
// tenant's delivery latency (create answered → receiver got it) p50 / p99 / max, and what the
// attack got. Real local receivers, the shipped timeouts and limits (10 s, 64 / 8 / 0.25, 5 s).
// Usage: pnpm --filter @svc/webhooks bench:fairness   (BENCH_SECONDS=15, MONGODB_URI=…)
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb, tokenUser } from '@svc/testkit'
import webhooks from '../src/index.js'

const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 9000)
const FLOOD = Number(process.env.BENCH_FLOOD ?? 300)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const SECRET = 'bench-secret-0123456789abcdef0123'
const teardowns: Array<() => unknown> = []
const { db, kind } = await getTestDb({ teardown: (fn) => teardowns.push(fn) })

async function listen (handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close: () => void }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}

let slowStarted = 0
const held = new Set<ServerResponse>()
const slow = await listen((req, res) => {
  req.resume()
  req.on('end', () => {
    slowStarted++
    held.add(res)
    setTimeout(() => {
      held.delete(res)
      res.end()
    }, SLOW_MS)
  })
})
const arrived = new Map<string, number>()
const fast = await listen((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    arrived.set(JSON.parse(Buffer.concat(chunks).toString()).recordId, performance.now())
    res.end()
  })
})

const app = Fastify({ logger: false })
await app.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{ path: 'logs', softDelete: false, audit: false, fields: [{ name: 'line', type: String }] }]
})
await app.register(webhooks, { allowPrivateUrls: true })
await app.ready()
const attacker = tokenUser(SECRET)
const victim = tokenUser(SECRET)
for (const [user, url] of [
  [attacker, slow.url],
  [victim, fast.url]
] as const) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: user.headers,
    payload: { events: ['logs.*'], url }
  })
  if (res.statusCode !== 201) throw new Error(res.body)
}
const ctx: any = { identity: { kind: 'user', userId: attacker.userId, roles: ['user'] }, surface: 'graphql' }
await app.svc.services.get('logs').createMany(
  ctx,
  Array.from({ length: FLOOD }, (_, i) => ({ line: `flood ${i}` }))
)

const answered = new Map<string, number>()
const until = performance.now() + SECONDS * 1000
while (performance.now() < until) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/logs',
    headers: victim.headers,
    payload: { line: 'urgent' }
  })
  answered.set(res.json()._id, performance.now())
  await new Promise((resolve) => setTimeout(resolve, 100))
}
const deadline = performance.now() + 10_000
while (arrived.size < answered.size && performance.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 20))
}
const lags = [...answered].map(([id, at]) => (arrived.get(id) ?? Infinity) - at).sort((a, b) => a - b)
const pct = (p: number): number => Number(lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)].toFixed(1))
const sub = await db.collection('webhook_subscriptions').findOne({ userId: attacker.userId })
console.log(
  JSON.stringify({
    database: kind,
    attack: {
      receiverDelayMs: SLOW_MS,
      events: FLOOD,
      attemptsStarted: slowStarted,
      failureCount: sub?.failureCount,
      active: sub?.active
    },
    otherTenant: {
      deliveries: lags.length,
      lost: lags.filter((l) => l === Infinity).length,
      p50Ms: pct(0.5),
      p99Ms: pct(0.99),
      maxMs: pct(1)
    }
  })
)
for (const res of held) res.end()
slow.close()
fast.close()
await app.close()
for (const fn of teardowns.reverse()) await fn()
