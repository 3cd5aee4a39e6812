// `__include` of one belongsTo and one hasMany on a 200-item page: proves the database commands
// per request (page find + count + one find per relation, never one per parent) and reports
// throughput next to the plain list. The database runs in a child process; svc and autocannon here.
// Usage: pnpm --filter @svc/core bench:include   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS=10)
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { MongoClient, type CommandStartedEvent } from 'mongodb'
import { signToken } from '@svc/testkit'
import svcCore from '../src/index.js'

const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const SECRET = 'bench-secret-0123456789abcdef0123'
const USER = '65f0000000000000000000be'
const schemas = [
  { path: 'companies', fields: [{ name: 'name', type: String, required: true }] },
  {
    path: 'contacts',
    fields: [{ name: 'name', type: String, required: true }, { name: 'companyId', type: String }],
    relations: { company: { belongsTo: 'companies', fk: 'companyId' }, deals: { hasMany: 'deals', fk: 'contactId' } }
  },
  { path: 'deals', fields: [{ name: 'title', type: String, required: true }, { name: 'amount', type: Number }, { name: 'contactId', type: String }] }
]

let devdb: ChildProcess | undefined
async function databaseUri (): Promise<string> {
  if (process.env.MONGODB_URI != null) return process.env.MONGODB_URI
  devdb = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(new URL('./devdb.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: devdb!.stdout! }).once('line', resolve)
    devdb!.once('exit', (code) => reject(new Error(`devdb exited with ${String(code)}`)))
  })
  return JSON.parse(line).uri
}

const client = new MongoClient(await databaseUri(), { monitorCommands: true })
try {
  await client.connect()
  const db = client.db()
  await db.dropDatabase()
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: SECRET, schemas })
  await app.listen({ host: '127.0.0.1', port: 0 })

  // 40 companies, 400 contacts (each with a company), 800 deals (two per contact).
  const now = Date.now()
  const stamp = (i: number): Record<string, unknown> => ({ userId: USER, createdAt: new Date(now - i * 1000), updatedAt: new Date(now - i * 1000) })
  const companies = await db.collection('companies').insertMany(Array.from({ length: 40 }, (_, i) => ({ name: `company ${i}`, ...stamp(i) })))
  const contacts = await db.collection('contacts').insertMany(Array.from({ length: 400 }, (_, i) => ({ name: `contact ${i}`, companyId: companies.insertedIds[i % 40].toHexString(), ...stamp(i) })))
  await db.collection('deals').insertMany(Array.from({ length: 800 }, (_, i) => ({ title: `deal ${i}`, amount: i, contactId: contacts.insertedIds[i % 400].toHexString(), ...stamp(i) })))

  const token = signToken({ user_id: USER, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/contacts?__perPage=200`
  const plainUrl = base
  const includeUrl = `${base}&__include=company,deals`

  // Command count for one request: every command the driver starts on this database.
  const seen: string[] = []
  const listen = (e: CommandStartedEvent): void => { if (e.databaseName === db.databaseName) seen.push(`${e.commandName} ${String(e.command[e.commandName])}`) }
  client.on('commandStarted', listen)
  const res = await app.inject({ method: 'GET', url: '/api/v1/contacts?__perPage=200&__include=company,deals', headers })
  client.off('commandStarted', listen)
  const body = res.json() as { results: Array<{ company: unknown, deals: unknown[] }> }
  if (res.statusCode !== 200 || body.results.length !== 200) throw new Error(`include list answered ${res.statusCode}`)
  if (!body.results.every((r) => r.company != null && r.deals.length === 2)) throw new Error('include list is not fully populated')
  const finds = seen.filter((s) => s.startsWith('find'))
  console.log(`GET /api/v1/contacts?__perPage=200&__include=company,deals → ${seen.length} database commands:`)
  for (const s of seen) console.log(`  ${s}`)
  console.log(`  = ${finds.length} finds (page + one per relation) + ${seen.length - finds.length} count aggregate`)
  if (finds.length !== 3) throw new Error(`expected exactly 3 finds, saw ${finds.length}`)

  const run = async (url: string): Promise<number> => {
    const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers })
    if (r.errors + r.non2xx > 0) throw new Error(`${url}: ${r.errors + r.non2xx} errors / non-2xx`)
    return r.requests.average
  }
  console.log(`database: ${process.env.MONGODB_URI != null ? 'MONGODB_URI' : '@svc/devdb (child process)'}; ${CONNECTIONS} connections, ${DURATION}s per run`)
  await run(plainUrl) // warm-up: JIT and connection pool
  await run(includeUrl)
  const plain = await run(plainUrl)
  const include = await run(includeUrl)
  console.log(`list 200            ${plain.toFixed(0).padStart(6)} req/s`)
  console.log(`list 200 + include  ${include.toFixed(0).padStart(6)} req/s   ratio ${(include / plain).toFixed(2)}`)
  await app.close()
  await db.dropDatabase()
} finally {
  await client.close()
  devdb?.kill('SIGTERM')
}
