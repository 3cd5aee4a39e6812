// `__include` of one belongsTo and one hasMany on a 200-item page: proves the database commands
// per request (page find + count + one find per relation, never one per parent) and reports
// throughput next to the plain list. The database runs in a child process; svc and autocannon here.
// Usage: pnpm --filter @svc/core bench:include   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import Fastify from 'fastify'
import { MongoClient, type CommandStartedEvent } from 'mongodb'
import { signToken } from '@svc/testkit'
import { BenchProcesses, compareLoads, describeRun } from '@svc/testkit/bench'
import svcCore from '../src/index.js'

const SECRET = 'bench-secret-0123456789abcdef0123'
const USER = '65f0000000000000000000be'
const schemas = [
  { path: 'companies', fields: [{ name: 'name', type: String, required: true }] },
  {
    path: 'contacts',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'companyId', type: String }
    ],
    relations: { company: { belongsTo: 'companies', fk: 'companyId' }, deals: { hasMany: 'deals', fk: 'contactId' } }
  },
  {
    path: 'deals',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'amount', type: Number },
      { name: 'contactId', type: String }
    ]
  }
]

const processes = new BenchProcesses()
const database = await processes.database('svc_bench_include')
const client = new MongoClient(database.uri, { monitorCommands: true })
try {
  await client.connect()
  const db = client.db()
  await db.dropDatabase()
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: SECRET, schemas })
  await app.listen({ host: '127.0.0.1', port: 0 })

  // 40 companies, 400 contacts (each with a company), 800 deals (two per contact).
  const now = Date.now()
  const stamp = (i: number): Record<string, unknown> => ({
    userId: USER,
    createdAt: new Date(now - i * 1000),
    updatedAt: new Date(now - i * 1000)
  })
  const companies = await db
    .collection('companies')
    .insertMany(Array.from({ length: 40 }, (_, i) => ({ name: `company ${i}`, ...stamp(i) })))
  const contacts = await db.collection('contacts').insertMany(
    Array.from({ length: 400 }, (_, i) => ({
      name: `contact ${i}`,
      companyId: companies.insertedIds[i % 40].toHexString(),
      ...stamp(i)
    }))
  )
  await db.collection('deals').insertMany(
    Array.from({ length: 800 }, (_, i) => ({
      title: `deal ${i}`,
      amount: i,
      contactId: contacts.insertedIds[i % 400].toHexString(),
      ...stamp(i)
    }))
  )

  const token = signToken({ user_id: USER, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })
  const headers = { authorization: `Bearer ${token}` }
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/contacts?__perPage=200`
  const plainUrl = base
  const includeUrl = `${base}&__include=company,deals`

  // Command count for one request: every command the driver starts on this database. A first
  // request warms the caller's password-change check (one `users` read, then cached).
  await app.inject({ method: 'GET', url: '/api/v1/contacts?__perPage=1', headers })
  const seen: string[] = []
  const listen = (e: CommandStartedEvent): void => {
    if (e.databaseName === db.databaseName) seen.push(`${e.commandName} ${String(e.command[e.commandName])}`)
  }
  client.on('commandStarted', listen)
  const res = await app.inject({
    method: 'GET',
    url: '/api/v1/contacts?__perPage=200&__include=company,deals',
    headers
  })
  client.off('commandStarted', listen)
  const body = res.json() as { results: Array<{ company: unknown; deals: unknown[] }> }
  if (res.statusCode !== 200 || body.results.length !== 200) throw new Error(`include list answered ${res.statusCode}`)
  if (!body.results.every((r) => r.company != null && r.deals.length === 2)) {
    throw new Error('include list is not fully populated')
  }
  const finds = seen.filter((s) => s.startsWith('find'))
  console.log(`GET /api/v1/contacts?__perPage=200&__include=company,deals → ${seen.length} database commands:`)
  for (const s of seen) console.log(`  ${s}`)
  console.log(`  = ${finds.length} finds (page + one per relation) + ${seen.length - finds.length} count aggregate`)
  if (finds.length !== 3) throw new Error(`expected exactly 3 finds, saw ${finds.length}`)

  // The server shares this process with autocannon here: throughput only, no server CPU figure.
  console.log(describeRun(database.label))
  const [plain, include] = await compareLoads([
    { label: 'plain', url: plainUrl, headers },
    { label: 'include', url: includeUrl, headers }
  ])
  console.log(`list 200            ${plain.rps.toFixed(0).padStart(6)} req/s`)
  console.log(
    `list 200 + include  ${include.rps.toFixed(0).padStart(6)} req/s   ratio ${(include.rps / plain.rps).toFixed(2)}`
  )
  await app.close()
  await db.dropDatabase()
} finally {
  await client.close()
  processes.stop()
}
