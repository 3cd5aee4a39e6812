// Latency of single-record writes with and without audit rows, one request at a time so the
// figures are per-write costs, not throughput: audit off; audit rows through core's write-ahead
// intents (`transactions: false`: the intent insert, the write, the row insert, the intent's
// completion); audit rows in one transaction with the write (the default on a replica set). The
// database runs in a child process (devdb, a single-node replica set, or MONGODB_URI, which must
// be a replica set for the third column); the app is driven in-process with inject().
// Usage: pnpm --filter @svc/audit bench   (BENCH_WRITES=500)
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import { signToken } from '@svc/testkit'
import { BenchProcesses } from '@svc/testkit/bench'
import audit from '../src/index.js'

const WRITES = Number(process.env.BENCH_WRITES ?? 500)
const SECRET = 'bench-secret-0123456789abcdef0123'
const headers = {
  authorization: `Bearer ${signToken({ user_id: '65f0000000000000000000be', email: 'b@example.test', roles: ['user'] }, SECRET)}`
}
const schemas = [
  {
    path: 'plain',
    audit: false,
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'n', type: Number }
    ]
  },
  {
    path: 'audited',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'n', type: Number }
    ]
  }
]

/** p50 / p95 of one series, in ms. */
function pct (ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b)
  const at = (p: number): string => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2)
  return `${at(0.5)} / ${at(0.95)}`
}

async function time (
  app: FastifyInstance,
  method: 'POST' | 'PUT' | 'DELETE',
  url: (i: number) => string,
  payload: (i: number) => unknown,
  expect: number,
  ids: string[] = []
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < WRITES; i++) {
    const t0 = process.hrtime.bigint()
    const res = await app.inject({
      method,
      url: url(i),
      headers,
      ...(payload(i) !== undefined ? { payload: payload(i) as Record<string, unknown> } : {})
    })
    out.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (res.statusCode !== expect) throw new Error(`${method} ${url(i)}: ${res.statusCode} ${res.body}`)
    if (method === 'POST') ids.push((res.json() as { _id: string })._id)
  }
  return out
}

const processes = new BenchProcesses()
const database = await processes.database('svc_bench_audit')
const uri = database.uri
const client = new MongoClient(uri)
await client.connect()
const db = client.db()
async function build (transactions: boolean): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: SECRET, schemas, transactions })
  await app.register(audit)
  await app.ready()
  return app
}
const columns: Array<{ name: string; app: FastifyInstance; path: string }> = [
  { name: 'audit off', app: await build(false), path: 'plain' },
  { name: 'rows via intents', app: await build(false), path: 'audited' },
  { name: 'rows in a transaction', app: await build(true), path: 'audited' }
]
console.log(`${WRITES} sequential writes each, database: ${database.label}; p50 / p95 ms of the second (warm) pass`)
const results = new Map<string, Record<string, number[]>>()
for (let pass = 0; pass < 2; pass++) {
  // the first pass warms up
  for (const c of columns) {
    const ids: string[] = []
    const create = await time(
      c.app,
      'POST',
      () => `/api/v1/${c.path}`,
      (i) => ({ title: `t${i}` }),
      201,
      ids
    )
    const update = await time(
      c.app,
      'PUT',
      (i) => `/api/v1/${c.path}/${ids[i]}`,
      (i) => ({ n: i }),
      200
    )
    const del = await time(
      c.app,
      'DELETE',
      (i) => `/api/v1/${c.path}/${ids[i]}`,
      () => undefined,
      200
    )
    results.set(c.name, { create, update, delete: del })
    await db.collection(c.path).deleteMany({})
  }
}
console.log(`| | ${columns.map((c) => c.name).join(' | ')} |`)
console.log(`|---|${columns.map(() => '---').join('|')}|`)
for (const op of ['create', 'update', 'delete']) { console.log(`| ${op} | ${columns.map((c) => pct(results.get(c.name)![op])).join(' | ')} |`) }
for (const c of columns) await c.app.close()
await client.close()
processes.stop()
