// Child process: svc on a database holding RECORDS deals of one tenant (inserted with the
// driver, shaped as svc stores them). Prints the port, a token and the cursor continuing at
// record 50,000 as one JSON line.
import Fastify from 'fastify'
import { MongoClient, ObjectId } from 'mongodb'
import { signToken } from '@svc/testkit'
import svcCore from '../src/index.js'

const uri = process.argv[2]
const RECORDS = Number(process.argv[3] ?? 100_000)
const SECRET = 'bench-secret-0123456789abcdef0123'
const client = new MongoClient(uri)
await client.connect()
const db = client.db()
const userId = new ObjectId().toHexString()

const app = Fastify({ logger: false })
await app.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{ path: 'deals', fields: [{ name: 'title', type: String, required: true }, { name: 'amount', type: Number, min: 0 }] }]
})
app.get('/cpu', async () => process.cpuUsage())
await app.ready()

const base = Date.UTC(2024, 0, 1)
for (let from = 0; from < RECORDS; from += 2000) {
  const docs = []
  for (let i = from; i < Math.min(from + 2000, RECORDS); i++) {
    const at = new Date(base + Math.floor(i / 2) * 1000) // pairs share a createdAt: ties go by _id
    docs.push({ _id: new ObjectId(), title: `deal ${i}`, amount: i % 1000, userId, createdAt: at, updatedAt: at })
  }
  await db.collection('deals').insertMany(docs)
}

const ctx = { identity: { kind: 'user' as const, userId, roles: ['user'] }, surface: 'system' as const }
// The cursor after record 50,000 (page 2,500 of 20) — issued once by offset, then reused by cursor.
const t0 = Date.now()
const deep = await app.svc.services.get('deals').list(ctx, { perPage: 20, page: Math.floor(RECORDS / 2 / 20), count: false })
await app.listen({ host: '127.0.0.1', port: 0 })
console.error(`seeded ${RECORDS} records; issuing the deep cursor by offset took ${Date.now() - t0} ms`)
const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })
const port = (app.server.address() as { port: number }).port
process.stdout.write(JSON.stringify({ port, token, cursor: deep.nextCursor, page: deep.page }) + '\n')
process.on('SIGTERM', () => { void app.close().then(async () => await client.close()).then(() => process.exit(0)) })
