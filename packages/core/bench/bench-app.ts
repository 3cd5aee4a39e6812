// What the bench server processes share: the database client (counting the commands it starts),
// svc on it for one `deals` schema, the bench tenant's token, the CPU and command-count
// endpoints, and the one JSON line that answers the parent (see @svc/testkit/bench).
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient, ObjectId, type Db } from 'mongodb'
import { signToken } from '@svc/testkit'
import svcCore from '../src/index.js'
import type { RequestContext } from '../src/index.js'

export const SECRET = 'bench-secret-0123456789abcdef0123'

export interface BenchDatabase {
  client: MongoClient
  db: Db
  commands: Map<string, number>
}

/** The bench's client: command monitoring on, every started command counted by name. */
export async function benchDatabase (uri: string): Promise<BenchDatabase> {
  const client = new MongoClient(uri, { monitorCommands: true })
  const commands = new Map<string, number>()
  client.on('commandStarted', (e) => {
    commands.set(e.commandName, (commands.get(e.commandName) ?? 0) + 1)
  })
  await client.connect()
  return { client, db: client.db(), commands }
}

/** svc serving `deals` with `fields` (indexes built at registration; routes may still be added). */
export async function svcApp (db: Db, fields: Array<Record<string, unknown>>): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  // One tenant drives the whole load: its per-minute cost budget would answer 429 within seconds
  // (a list of 20 over 100,000 records is priced by what it may scan). Requests are still priced.
  await app.register(svcCore, {
    db,
    jwtSecret: SECRET,
    schemas: [{ path: 'deals', fields }],
    tenantCostPerMinute: false
  })
  return app
}

/** The bench tenant: one user, its service context and its bearer token. */
export function benchTenant (): { userId: string; ctx: RequestContext; token: string } {
  const userId = new ObjectId().toHexString()
  const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET, {
    expiresIn: 3600
  })
  return { userId, ctx: { identity: { kind: 'user', userId, roles: ['user'] }, surface: 'system' }, token }
}

/**
 * `GET /cpu`: the process's CPU time so far (the bench reports CPU per request, steadier than
 * req/s on a shared machine); `GET /commands`: the database commands started so far, by name.
 */
export function measureRoutes (app: FastifyInstance, commands: Map<string, number>): void {
  app.get('/cpu', async () => process.cpuUsage())
  app.get('/commands', async () => Object.fromEntries(commands))
}

/** Listens on 127.0.0.1, prints `{ <name>Port…, ...extra }` as one line, closes everything on SIGTERM. */
export async function answer (
  apps: Record<string, FastifyInstance>,
  client: MongoClient,
  extra: Record<string, unknown>
): Promise<void> {
  const ports: Record<string, number> = {}
  for (const [name, app] of Object.entries(apps)) {
    await app.listen({ host: '127.0.0.1', port: 0 })
    ports[`${name}Port`] = (app.server.address() as { port: number }).port
  }
  process.stdout.write(JSON.stringify({ ...ports, ...extra }) + '\n')
  process.on('SIGTERM', () => {
    Promise.all(Object.values(apps).map(async (a) => await a.close()))
      .then(async () => await client.close())
      .then(
        () => process.exit(0),
        () => process.exit(1)
      )
  })
}
