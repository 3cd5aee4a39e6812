// Latency of single-record writes with and without audit rows (core's durable effects: the
// write-ahead intent, the effect insert, the intent's completion), one request at a time so the
// figures are per-write costs, not throughput. The database runs in a child process (devdb, or
// MONGODB_URI); the app is driven in-process with inject().
// Usage: pnpm --filter @svc/audit bench   (BENCH_WRITES=500)
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import { signToken } from '@svc/testkit'
import audit from '../src/index.js'

const WRITES = Number(process.env.BENCH_WRITES ?? 500)
const SECRET = 'bench-secret-0123456789abcdef0123'
const headers = { authorization: `Bearer ${signToken({ user_id: '65f0000000000000000000be', email: 'b@example.test', roles: ['user'] }, SECRET)}` }
const schemas = [
  { path: 'plain', audit: false, fields: [{ name: 'title', type: String, required: true }, { name: 'n', type: Number }] },
  { path: 'audited', fields: [{ name: 'title', type: String, required: true }, { name: 'n', type: Number }] }
]

let devdb: ChildProcess | undefined
async function databaseUri (): Promise<string> {
  if (process.env.MONGODB_URI != null) return process.env.MONGODB_URI
  devdb = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(new URL('./devdb.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve) => createInterface({ input: devdb!.stdout! }).once('line', resolve))
  return (JSON.parse(line) as { uri: string }).uri
}

function stats (ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b)
  const at = (p: number): string => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2)
  return `mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2)} ms  p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}`
}

async function time (app: FastifyInstance, method: 'POST' | 'PUT' | 'DELETE', url: (i: number) => string, payload: (i: number) => unknown, expect: number, ids: string[] = []): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < WRITES; i++) {
    const t0 = process.hrtime.bigint()
    const res = await app.inject({ method, url: url(i), headers, ...(payload(i) !== undefined ? { payload: payload(i) as Record<string, unknown> } : {}) })
    out.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (res.statusCode !== expect) throw new Error(`${method} ${url(i)}: ${res.statusCode} ${res.body}`)
    if (method === 'POST') ids.push((res.json() as { _id: string })._id)
  }
  return out
}

const uri = await databaseUri()
const client = new MongoClient(uri)
await client.connect()
const db = client.db()
const app = Fastify({ logger: false })
await app.register(svcCore, { db, jwtSecret: SECRET, schemas })
await app.register(audit)
await app.ready()
console.log(`${WRITES} sequential writes each, devdb${process.env.MONGODB_URI != null ? ' → MONGODB_URI' : ' (child process)'}`)
for (const path of ['plain', 'audited', 'plain', 'audited']) { // twice: the first pass warms up
  const ids: string[] = []
  const create = await time(app, 'POST', () => `/api/v1/${path}`, (i) => ({ title: `t${i}` }), 201, ids)
  const update = await time(app, 'PUT', (i) => `/api/v1/${path}/${ids[i]}`, (i) => ({ n: i }), 200)
  const del = await time(app, 'DELETE', (i) => `/api/v1/${path}/${ids[i]}`, () => undefined, 200)
  console.log(`${path.padEnd(8)} create  ${stats(create)}`)
  console.log(`${path.padEnd(8)} update  ${stats(update)}`)
  console.log(`${path.padEnd(8)} delete  ${stats(del)}`)
  await db.collection(path).deleteMany({})
}
await app.close()
await client.close()
devdb?.kill('SIGTERM')
