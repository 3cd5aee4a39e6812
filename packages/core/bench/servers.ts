// Child process: the svc app and a hand-written raw-driver app on the same database, both
// listening on 127.0.0.1. Prints ports, a record id and a token as one JSON line.
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient, ObjectId } from 'mongodb'
import { signToken } from '@svc/testkit'
import svcCore from '../src/index.js'

const uri = process.argv[2]
const SECRET = 'bench-secret-0123456789abcdef0123'
const client = new MongoClient(uri)
await client.connect()
const db = client.db()
const userId = new ObjectId().toHexString()

const svc = Fastify({ logger: false })
await svc.register(svcCore, {
  db,
  jwtSecret: SECRET,
  schemas: [{
    path: 'deals',
    fields: [
      { name: 'title', type: String, required: true }, { name: 'amount', type: Number, min: 0 },
      { name: 'stage', type: String, enum: ['open', 'won', 'lost'], default: 'open' }, { name: 'closeDate', type: Date }
    ]
  }]
})
await svc.ready()

// Seed through the service so both apps read identical documents.
const ctx = { identity: { kind: 'user' as const, userId, roles: ['user'] }, surface: 'system' as const }
let id = ''
for (let i = 0; i < 200; i++) {
  const rec = await svc.svc.services.get('deals').create(ctx, { title: `deal ${i}`, amount: i * 10, closeDate: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() })
  if (i === 100) id = rec._id
}

// The baseline: what a developer would write by hand for the same two answers.
const raw: FastifyInstance = Fastify({ logger: false })
const deals = db.collection('deals')
raw.get('/raw/deals/:id', async (request, reply) => {
  const { id } = request.params as { id: string }
  if (!ObjectId.isValid(id)) return await reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'not found' } })
  const doc = await deals.findOne({ _id: new ObjectId(id), userId })
  if (doc == null) return await reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'not found' } })
  return doc
})
raw.get('/raw/deals', async () => {
  const filter = { userId }
  const [results, totalResults] = await Promise.all([
    deals.find(filter, { sort: { createdAt: -1, _id: -1 }, limit: 20 }).toArray(),
    deals.countDocuments(filter)
  ])
  const totalPages = Math.ceil(totalResults / 20)
  return { results, totalResults, page: 1, perPage: 20, totalPages, nextPage: totalPages > 1 ? 2 : null, prevPage: null }
})

// Writes by hand: the record, plus one side row in the same transaction (svc's create and update
// commit the record with its durable event-log row, see durable/commit.ts).
const sideRows = db.collection('raw_side_rows')
const withRow = async (write: (session: import('mongodb').ClientSession) => Promise<unknown>, row: Record<string, unknown>): Promise<unknown> => {
  const session = client.startSession()
  try {
    return await session.withTransaction(async () => {
      const out = await write(session)
      await sideRows.insertOne({ ...row, at: new Date() }, { session })
      return out
    })
  } finally {
    await session.endSession()
  }
}
raw.post('/raw/deals', async (request, reply) => {
  const body = request.body as { title?: unknown, amount?: unknown }
  if (typeof body?.title !== 'string') return await reply.code(400).send({ error: { code: 'VALIDATION', message: 'title' } })
  const now = new Date()
  const doc = { _id: new ObjectId(), title: body.title, amount: body.amount, stage: 'open', userId, createdAt: now, updatedAt: now }
  await withRow(async (session) => await deals.insertOne(doc, { session }), { type: 'deals.created', recordId: doc._id })
  return await reply.code(201).send(doc)
})
raw.put('/raw/deals/:id', async (request, reply) => {
  const { id } = request.params as { id: string }
  const body = request.body as { amount?: unknown }
  if (!ObjectId.isValid(id) || typeof body?.amount !== 'number') return await reply.code(400).send({ error: { code: 'VALIDATION', message: 'amount' } })
  const doc = await withRow(async (session) => await deals.findOneAndUpdate({ _id: new ObjectId(id), userId }, { $set: { amount: body.amount, updatedAt: new Date() } }, { session, returnDocument: 'after' }), { type: 'deals.updated', recordId: id })
  if (doc == null) return await reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'not found' } })
  return doc
})

// Server-process CPU, so the benchmark can report CPU per request (less noisy than req/s on a shared machine).
raw.get('/cpu', async () => process.cpuUsage())

await svc.listen({ host: '127.0.0.1', port: 0 })
await raw.listen({ host: '127.0.0.1', port: 0 })
const port = (app: FastifyInstance): number => (app.server.address() as { port: number }).port
const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })
process.stdout.write(JSON.stringify({ svcPort: port(svc), rawPort: port(raw), id, token }) + '\n')
process.on('SIGTERM', () => { void Promise.all([svc.close(), raw.close()]).then(async () => await client.close()).then(() => process.exit(0)) })
