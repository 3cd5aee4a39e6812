// Child process: svc apps on one database — `bare` (core alone), core behind @svc/surface with
// every part off, with one part on at a time, and with what the reference server turns on —
// listening on 127.0.0.1. Prints their ports, a record id and a token as one JSON line.
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
const SCHEMAS = [
  {
    path: 'deals',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'amount', type: Number }
    ]
  }
]

async function app (surface: SurfaceOptions | null): Promise<FastifyInstance> {
  const a = Fastify({ logger: false })
  if (surface !== null) await a.register(svcSurface, surface)
  await a.register(svcCore, { db, jwtSecret: SECRET, schemas: SCHEMAS })
  await a.listen({ host: '127.0.0.1', port: 0 })
  return a
}

const port = (a: FastifyInstance): number => (a.server.address() as { port: number }).port
// Each part of @svc/surface alone on top of the plugin with everything off (the rate limit's
// budget high enough never to refuse), then everything the reference server turns on.
const off: SurfaceOptions = { docs: false, securityHeaders: false, loadShedding: false, rateLimit: false }
const variants: Record<string, SurfaceOptions | null> = {
  bare: null,
  'surface, all off': off,
  '+ security headers': { ...off, securityHeaders: true },
  '+ cors': { ...off, cors: { origins: ['https://app.example.test'] } },
  '+ load shedding': { ...off, loadShedding: {} },
  '+ metrics': { ...off, metrics: {} },
  '+ rate limits': { ...off, rateLimit: { apiPerMin: 1e9 } },
  '+ api docs': { ...off, docs: {} },
  'all (reference server)': {
    metrics: {},
    rateLimit: { apiPerMin: 1e9 },
    cors: { origins: ['https://app.example.test'] }
  }
}
const ports: Record<string, number> = {}
const apps: FastifyInstance[] = []
for (const [name, options] of Object.entries(variants)) {
  const a = await app(options)
  apps.push(a)
  ports[name] = port(a)
}
// Server-process CPU (all apps live here; one is loaded at a time), on a port of its own.
const cpuServer = createServer((_req, res) => {
  res.end(JSON.stringify(process.cpuUsage()))
}).listen(0, '127.0.0.1')
await once(cpuServer, 'listening')
const ctx = { identity: { kind: 'user' as const, userId, roles: ['user'] }, surface: 'system' as const }
const { _id: id } = await apps[0].svc.services.get('deals').create(ctx, { title: 'bench', amount: 1 })
const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET)
process.stdout.write(JSON.stringify({ ports, cpu: (cpuServer.address() as { port: number }).port, id, token }) + '\n')
