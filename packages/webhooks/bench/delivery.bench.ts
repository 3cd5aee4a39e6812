// Deliveries per second from records written to a local receiver (one process: app, event log,
// fan-out, delivery, devdb or MONGODB_URI, receiver), and the latency a create pays for its event.
// Usage: pnpm --filter @svc/webhooks bench   (BENCH_EVENTS=2000, BENCH_CREATES=300)
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb, tokenUser } from '@svc/testkit'
import webhooks from '../src/index.js'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000)
const SECRET = 'bench-secret-0123456789abcdef0123'
const teardowns: Array<() => unknown> = []
const { db, kind } = await getTestDb({ teardown: (fn) => teardowns.push(fn) })

let received = 0
let onReceived = (): void => {}
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    received++
    res.end()
    onReceived()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

const app = Fastify({ logger: false })
await app.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{ path: 'logs', softDelete: false, audit: false, fields: [{ name: 'line', type: String }] }]
})
await app.register(webhooks, {
  allowPrivateUrls: true,
  pollIntervalMs: 50,
  ...(process.env.BENCH_CONCURRENCY !== undefined ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {})
})
await app.ready()
const user = tokenUser(SECRET)
const sub = await app.inject({
  method: 'POST',
  url: '/api/v1/webhooks',
  headers: user.headers,
  payload: { events: ['logs.*'], url }
})
if (sub.statusCode !== 201) throw new Error(sub.body)

// Deliveries: EVENTS records of one tenant, to one subscription, written in bulk (1000 per
// createMany), timed until the receiver has every event; with the phases: written, stamped by
// the log's sequencer, fanned out to jobs, delivered (at most perSubscriptionConcurrency at once).
const ctx: any = { identity: { kind: 'user', userId: user.userId, roles: ['user'] }, surface: 'graphql' }
const started = performance.now()
const done = new Promise<void>((resolve) => {
  onReceived = () => {
    if (received >= EVENTS) resolve()
  }
})
for (let i = 0; i < EVENTS; i += 1000) {
  await app.svc.services.get('logs').createMany(
    ctx,
    Array.from({ length: Math.min(1000, EVENTS - i) }, () => ({ line: 'x'.repeat(200) }))
  )
}
const phases: Record<string, number> = { writtenMs: Math.round(performance.now() - started) }
const watch = setInterval(() => {
  void (async () => {
    if (
      phases.stampedMs === undefined &&
      (await db.collection('svc_events').countDocuments({ seq: { $exists: true } })) >= EVENTS
    ) {
      phases.stampedMs = Math.round(performance.now() - started)
    }
    if (phases.fannedOutMs === undefined && (await db.collection('webhook_jobs').countDocuments()) >= EVENTS) {
      phases.fannedOutMs = Math.round(performance.now() - started)
    }
  })()
}, 50)
await done
clearInterval(watch)
const secs = (performance.now() - started) / 1000
const deliverySecs = secs - (phases.fannedOutMs ?? 0) / 1000
console.log(
  JSON.stringify({
    database: kind,
    events: EVENTS,
    ...phases,
    deliveredMs: Math.round(secs * 1000),
    writeToDeliveryPerSecond: Math.round(EVENTS / secs),
    deliveriesPerSecondOnceFannedOut: Math.round(EVENTS / deliverySecs)
  })
)

// Create latency: the event is one more insert in the write (no network call); compared with
// core alone on the same database, and with a subscription that matches every create.
const CREATES = Number(process.env.BENCH_CREATES ?? 300)
async function createLatency (
  target: typeof app,
  headers: Record<string, string>
): Promise<{ medianMs: number; p95Ms: number }> {
  const times: number[] = []
  for (let i = 0; i < CREATES; i++) {
    const t0 = performance.now()
    const res = await target.inject({ method: 'POST', url: '/api/v1/logs', headers, payload: { line: `line ${i}` } })
    times.push(performance.now() - t0)
    if (res.statusCode !== 201) throw new Error(res.body)
  }
  times.sort((a, b) => a - b)
  return {
    medianMs: Number(times[Math.floor(CREATES / 2)].toFixed(2)),
    p95Ms: Number(times[Math.floor(CREATES * 0.95)].toFixed(2))
  }
}
const plain = Fastify({ logger: false })
await plain.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{ path: 'logs', softDelete: false, audit: false, fields: [{ name: 'line', type: String }] }]
})
await plain.ready()
const quiet = Fastify({ logger: false })
await quiet.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{ path: 'logs', softDelete: false, audit: false, fields: [{ name: 'line', type: String }] }]
})
await quiet.register(webhooks, { worker: false })
await quiet.ready()
const other = tokenUser(SECRET)
await createLatency(plain, other.headers) // warm-up
const coreAlone = await createLatency(plain, other.headers)
// The write path alone (the event through core's durable effects, no worker in this process).
const outboxOnly = await createLatency(quiet, other.headers)
const noMatch = await createLatency(app, other.headers)
const matching = await createLatency(app, user.headers)
console.log(
  JSON.stringify({
    creates: CREATES,
    coreAlone,
    eventLogOnWorkerOff: outboxOnly,
    webhooksNoMatchingSubscription: noMatch,
    webhooksMatchingSubscription: matching,
    ratioMatchingVsNoMatch: Number((matching.medianMs / noMatch.medianMs).toFixed(2))
  })
)
await plain.close()
await quiet.close()

await app.close()
receiver.close()
for (const fn of teardowns.reverse()) await fn()
