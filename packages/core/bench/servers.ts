// Child process: the svc app and a hand-written raw-driver app on the same database, both
// listening on 127.0.0.1. Prints ports, the seeded record ids and a token as one JSON line.
import Fastify, { type FastifyInstance } from 'fastify'
import fastifyJwt from '@fastify/jwt'
import { ObjectId, type ClientSession } from 'mongodb'
import { answer, benchDatabase, benchTenant, measureRoutes, SECRET, svcApp } from './bench-app.js'

const { client, db, commands } = await benchDatabase(process.argv[2])
const { ctx, token } = benchTenant()
const svc = await svcApp(db, [
  { name: 'title', type: String, required: true },
  { name: 'amount', type: Number, min: 0 },
  { name: 'stage', type: String, enum: ['open', 'won', 'lost'], default: 'open' },
  { name: 'closeDate', type: Date }
])
await svc.ready()
// The audit row every write leaves behind, through core's durable effects (what @svc/audit
// registers): it exists iff the write committed. The hand-written writes insert the same row.
const deals = svc.svc.services.get('deals')
deals.addDurableEffect('bench-audit', (result) => [
  {
    collection: 'bench_audit',
    document: { _id: new ObjectId(), type: `deals.${result.action}`, recordId: result.recordId, at: new Date() }
  }
])

// Seed through the service so both apps read identical documents.
const ids: string[] = []
for (let i = 0; i < 200; i++) {
  const rec = await deals.create(ctx, {
    title: `deal ${i}`,
    amount: i * 10,
    closeDate: new Date(Date.UTC(2024, 0, 1 + i)).toISOString()
  })
  ids.push(rec._id)
}

// The baseline: what a developer would write by hand for the same answers — the same JWT check
// (@fastify/jwt's verify of the bearer, as svc's; the tenant is the token's user), then the driver.
const raw: FastifyInstance = Fastify({ logger: false })
await raw.register(fastifyJwt, { secret: SECRET })
const BEARER = /^Bearer +(\S+)$/i
const tenant = async (request: { headers: { authorization?: string } }): Promise<string> => {
  const token = BEARER.exec(request.headers.authorization ?? '')?.[1]
  const claims = token === undefined ? null : raw.jwt.verify<{ user_id?: unknown }>(token)
  if (typeof claims?.user_id !== 'string') throw Object.assign(new Error('no user'), { statusCode: 401 })
  return claims.user_id
}
const records = db.collection('deals')
const notFound = { error: { code: 'NOT_FOUND', message: 'not found' } }
raw.get('/raw/deals/:id', async (request, reply) => {
  const userId = await tenant(request)
  const { id } = request.params as { id: string }
  if (!ObjectId.isValid(id)) return await reply.code(404).send(notFound)
  const doc = await records.findOne({ _id: new ObjectId(id), userId })
  if (doc == null) return await reply.code(404).send(notFound)
  return doc
})
raw.get('/raw/deals', async (request) => {
  const filter = { userId: await tenant(request) }
  const [results, totalResults] = await Promise.all([
    records.find(filter, { sort: { createdAt: -1, _id: -1 }, limit: 20 }).toArray(),
    records.countDocuments(filter)
  ])
  const totalPages = Math.ceil(totalResults / 20)
  return {
    results,
    totalResults,
    page: 1,
    perPage: 20,
    totalPages,
    nextPage: totalPages > 1 ? 2 : null,
    prevPage: null
  }
})

// Writes by hand: the record, plus the audit row in the same transaction.
const auditRows = db.collection('bench_audit')
const withRow = async (
  write: (session: ClientSession) => Promise<unknown>,
  row: Record<string, unknown>
): Promise<unknown> => {
  const session = client.startSession()
  try {
    return await session.withTransaction(async () => {
      const out = await write(session)
      await auditRows.insertOne({ ...row, at: new Date() }, { session })
      return out
    })
  } finally {
    await session.endSession()
  }
}
raw.post('/raw/deals', async (request, reply) => {
  const userId = await tenant(request)
  const body = request.body as { title?: unknown; amount?: unknown }
  if (typeof body?.title !== 'string') {
    return await reply.code(400).send({ error: { code: 'VALIDATION', message: 'title' } })
  }
  const now = new Date()
  const doc = {
    _id: new ObjectId(),
    title: body.title,
    amount: body.amount,
    stage: 'open',
    userId,
    createdAt: now,
    updatedAt: now
  }
  await withRow(async (session) => await records.insertOne(doc, { session }), {
    type: 'deals.created',
    recordId: doc._id.toHexString()
  })
  return await reply.code(201).send(doc)
})
raw.put('/raw/deals/:id', async (request, reply) => {
  const userId = await tenant(request)
  const { id } = request.params as { id: string }
  const body = request.body as { amount?: unknown }
  if (!ObjectId.isValid(id) || typeof body?.amount !== 'number') {
    return await reply.code(400).send({ error: { code: 'VALIDATION', message: 'amount' } })
  }
  const update = async (session: ClientSession): Promise<unknown> =>
    await records.findOneAndUpdate(
      { _id: new ObjectId(id), userId },
      { $set: { amount: body.amount, updatedAt: new Date() } },
      { session, returnDocument: 'after' }
    )
  const doc = await withRow(update, { type: 'deals.updated', recordId: id })
  if (doc == null) return await reply.code(404).send(notFound)
  return doc
})
measureRoutes(raw, commands)

await answer({ svc, raw }, client, { ids, token })
