// Child process: two svc apps on one database — `bare` (core alone) and `surface` (core behind
// @svc/surface with metrics, rate limits and CORS on) — listening on 127.0.0.1. Prints ports, a
// record id and a token as one JSON line.
import { once } from 'node:events'
import { createServer } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient, ObjectId } from 'mongodb'
import svcCore from '@svc/core'
import { signToken } from '@svc/testkit'
import svcSurface from '../src/index.js'
import type { SurfaceOptions } from '../src/types.js'

const SECRET = 'bench-secret-0123456789abcdef0123'
const client = new MongoClient(process.argv[2])
await client.connect()
const db = client.db()
const userId = new ObjectId().toHexString()
const SCHEMAS = [{ path: 'deals', fields: [{ name: 'title', type: String, required: true }, { name: 'amount', type: Number }] }]

async function app (surface: SurfaceOptions | null): Promise<FastifyInstance> {
  const a = Fastify({ logger: false })
  if (surface !== null) await a.register(svcSurface, surface)
  await a.register(svcCore, { db, jwtSecret: SECRET, schemas: SCHEMAS })
  await a.listen({ host: '127.0.0.1', port: 0 })
  return a
}

const port = (a: FastifyInstance): number => (a.server.address() as { port: number }).port
const bare = await app(null)
// What the issue measures: metrics + rate limiting + CORS (the budget high enough never to refuse).
const measured = await app({ metrics: {}, rateLimit: { apiPerMin: 1e9 }, cors: { origins: ['https://app.example.test'] }, securityHeaders: false, loadShedding: false })
// Everything the reference server turns on.
const full = await app({ metrics: {}, rateLimit: { apiPerMin: 1e9 }, cors: { origins: ['https://app.example.test'] } })
// Server-process CPU (all three apps live here; one is loaded at a time), on a port of its own.
const cpuServer = createServer((_req, res) => { res.end(JSON.stringify(process.cpuUsage())) }).listen(0, '127.0.0.1')
await once(cpuServer, 'listening')
const ctx = { identity: { kind: 'user' as const, userId, roles: ['user'] }, surface: 'system' as const }
const { _id: id } = await bare.svc.services.get('deals').create(ctx, { title: 'bench', amount: 1 })
const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET)
process.stdout.write(JSON.stringify({ bare: port(bare), measured: port(measured), full: port(full), cpu: (cpuServer.address() as { port: number }).port, id, token }) + '\n')
