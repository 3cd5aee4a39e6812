// The baseline every svc bench compares with: what a developer would write by hand for the same
// answers on the same database — the same JWT check (@fastify/jwt's verify of the bearer, as
// svc's; the tenant is the token's user), then the driver. Writes commit the record and one
// audit row in one transaction, as svc's durable effects do; the caller says which row (the one
// the svc side of its bench writes), so both sides store the same.
import Fastify, { type FastifyInstance } from 'fastify'
import fastifyJwt from '@fastify/jwt'
import {
  ObjectId,
  type ClientSession,
  type Db,
  type Document,
  type IndexSpecification,
  type MongoClient
} from 'mongodb'

/** One write, as its audit row is built from it. */
export interface RawWrite {
  action: 'created' | 'updated'
  recordId: string
  /** The verified token's claims. */
  claims: Record<string, unknown>
  requestId: string
  before: Document | null
  after: Document
  at: Date
}

export interface RawAppOptions {
  secret: string
  /** The collection, also the routes' last segment: `/raw/<collection>`. */
  collection: string
  /** The record a create stores (without `_id`, `userId` and the timestamps); null: 400. */
  created: (body: Record<string, unknown>) => Record<string, unknown> | null
  /** The `$set` of an update; null: 400. */
  updated: (body: Record<string, unknown>) => Record<string, unknown> | null
  /** The audit row a write commits with (its `_id` included), in `collection`, with `index` (when given) built first. */
  audit: { collection: string; index?: IndexSpecification; row: (write: RawWrite) => Document }
}

export async function rawApp (client: MongoClient, db: Db, opts: RawAppOptions): Promise<FastifyInstance> {
  const raw: FastifyInstance = Fastify({ logger: false })
  await raw.register(fastifyJwt, { secret: opts.secret })
  const BEARER = /^Bearer +(\S+)$/i
  const claimsOf = (request: {
    headers: { authorization?: string }
  }): Record<string, unknown> & { user_id: string } => {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1]
    const claims = token === undefined ? null : raw.jwt.verify<{ user_id?: unknown }>(token)
    if (typeof claims?.user_id !== 'string') throw Object.assign(new Error('no user'), { statusCode: 401 })
    return claims as Record<string, unknown> & { user_id: string }
  }
  const tenant = async (request: { headers: { authorization?: string } }): Promise<string> => claimsOf(request).user_id
  const path = `/raw/${opts.collection}`
  const records = db.collection(opts.collection)
  const notFound = { error: { code: 'NOT_FOUND', message: 'not found' } }
  const invalid = { error: { code: 'VALIDATION', message: 'invalid body' } }
  raw.get(`${path}/:id`, async (request, reply) => {
    const userId = await tenant(request)
    const { id } = request.params as { id: string }
    if (!ObjectId.isValid(id)) return await reply.code(404).send(notFound)
    const doc = await records.findOne({ _id: new ObjectId(id), userId })
    if (doc == null) return await reply.code(404).send(notFound)
    return doc
  })
  raw.get(path, async (request) => {
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

  const auditRows = db.collection(opts.audit.collection)
  if (opts.audit.index !== undefined) await auditRows.createIndex(opts.audit.index)
  /** Runs `write` (answering the record before and after) in a transaction with its audit row. */
  const withRow = async (
    write: (session: ClientSession) => Promise<{ before: Document | null; after: Document } | null>,
    row: Omit<RawWrite, 'before' | 'after' | 'at'>
  ): Promise<Document | null> => {
    const session = client.startSession()
    try {
      return await session.withTransaction(async () => {
        const out = await write(session)
        if (out === null) return null
        await auditRows.insertOne(opts.audit.row({ ...row, ...out, at: new Date() }), { session })
        return out.after
      })
    } finally {
      await session.endSession()
    }
  }
  raw.post(path, async (request, reply) => {
    const claims = claimsOf(request)
    const fields = opts.created((request.body ?? {}) as Record<string, unknown>)
    if (fields === null) return await reply.code(400).send(invalid)
    const now = new Date()
    const doc = { _id: new ObjectId(), ...fields, userId: claims.user_id, createdAt: now, updatedAt: now }
    const write = { action: 'created' as const, recordId: doc._id.toHexString(), claims, requestId: request.id }
    await withRow(async (session) => {
      await records.insertOne(doc, { session })
      return { before: null, after: doc }
    }, write)
    return await reply.code(201).send(doc)
  })
  raw.put(`${path}/:id`, async (request, reply) => {
    const claims = claimsOf(request)
    const { id } = request.params as { id: string }
    const set = opts.updated((request.body ?? {}) as Record<string, unknown>)
    if (!ObjectId.isValid(id) || set === null) return await reply.code(400).send(invalid)
    const change = { ...set, updatedAt: new Date() }
    const update = async (session: ClientSession): Promise<{ before: Document; after: Document } | null> => {
      const before = await records.findOneAndUpdate(
        { _id: new ObjectId(id), userId: claims.user_id },
        { $set: change },
        { session, returnDocument: 'before' }
      )
      return before === null ? null : { before, after: { ...before, ...change } }
    }
    const doc = await withRow(update, { action: 'updated', recordId: id, claims, requestId: request.id })
    if (doc == null) return await reply.code(404).send(notFound)
    return doc
  })
  return raw
}
