// What the durable event log costs a write, and how fast its events reach consumers. Sequential
// creates (p50 / p95 ms) with core alone and with the log on, on both commit paths (transactions,
// write-ahead intents), in alternating rounds; then the time from a create's answer to a follower
// on the same instance and on a second instance on the same database. The database runs in a
// child process (devdb, or MONGODB_URI).
// Usage: pnpm --filter @svc/core bench:events   (MONGODB_URI=…, BENCH_CREATES=300, BENCH_ROUNDS=3)
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient, type Db } from 'mongodb'
import { signToken } from '@svc/testkit'
import { BenchProcesses } from '@svc/testkit/bench'
import svcCore from '../src/index.js'

const CREATES = Number(process.env.BENCH_CREATES ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECRET = 'bench-secret-0123456789abcdef0123'
const headers = {
  authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'b@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })}`
}
const schemas = [{ path: 'notes', softDelete: false, audit: false, fields: [{ name: 'text', type: String }] }]

async function build (db: Db, transactions: 'auto' | false, log: boolean): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: SECRET, schemas, transactions })
  if (log) {
    await app.register(async (a) => {
      a.svc.eventLog.enable()
    })
  }
  await app.ready()
  return app
}

function pct (xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return Number(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)].toFixed(2))
}

async function creates (app: FastifyInstance, n: number, out: number[], gapMs = 0): Promise<Map<string, number>> {
  const answered = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { text: `note ${i}` } })
    const t1 = performance.now()
    if (res.statusCode !== 201) throw new Error(res.body)
    out.push(t1 - t0)
    answered.set(res.json()._id, t1)
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
  }
  return answered
}

const processes = new BenchProcesses()
const database = await processes.database('svc_bench_events')
const client = new MongoClient(database.uri)
try {
  await client.connect()
  const db = client.db()
  await db.dropDatabase()
  const configs = [
    { label: 'transactions, core alone', app: await build(db, 'auto', false) },
    { label: 'transactions, event log on', app: await build(db, 'auto', true) },
    { label: 'intents, core alone', app: await build(db, false, false) },
    { label: 'intents, event log on', app: await build(db, false, true) }
  ]
  console.log(
    `database: ${database.label}; ${CREATES} sequential creates per configuration, ${ROUNDS} alternating rounds`
  )
  for (const c of configs) await creates(c.app, 50, [])
  const times = configs.map((): number[] => [])
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? configs.map((_, i) => i) : configs.map((_, i) => configs.length - 1 - i)
    for (const i of order) await creates(configs[i].app, Math.ceil(CREATES / ROUNDS), times[i])
  }
  const rows = configs.map((c, i) => ({
    configuration: c.label,
    p50Ms: pct(times[i], 0.5),
    p95Ms: pct(times[i], 0.95)
  }))
  console.table(rows)
  console.log(JSON.stringify({ createLatency: rows }))
  for (const c of configs) await c.app.close()

  // Event delivery: creates on A at ~40/s; followers on A and on a second instance B (both poll: default pollMs).
  await db.dropDatabase()
  const a = await build(db, 'auto', true)
  const b = await build(db, 'auto', true)
  const seen = { a: new Map<string, number>(), b: new Map<string, number>() }
  await a.svc.eventLog.follow(null, (events) => {
    for (const e of events) seen.a.set(e.recordId as string, performance.now())
  })
  await b.svc.eventLog.follow(null, (events) => {
    for (const e of events) seen.b.set(e.recordId as string, performance.now())
  })
  const answered = await creates(a, CREATES, [], 25)
  while (seen.a.size < CREATES || seen.b.size < CREATES) await new Promise((resolve) => setTimeout(resolve, 20))
  const lag = (m: Map<string, number>): number[] => [...answered].map(([id, at]) => m.get(id)! - at)
  const delivery = {
    mode: a.svc.eventLog.mode,
    sameInstance: { p50Ms: pct(lag(seen.a), 0.5), p99Ms: pct(lag(seen.a), 0.99) },
    otherInstance: { p50Ms: pct(lag(seen.b), 0.5), p99Ms: pct(lag(seen.b), 0.99) }
  }
  console.log(JSON.stringify({ eventDelivery: delivery }))
  await a.close()
  await b.close()
  await db.dropDatabase()
} finally {
  await client.close()
  processes.stop()
}
