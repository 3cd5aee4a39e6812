import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { ObjectId, type Collection, type Db, type Document } from 'mongodb'
import { ConflictError, ValidationError } from '../errors.js'
import type { RecordJson } from './types.js'

export const IDEMPOTENCY_COLLECTION = 'idempotency_keys'
const TTL_MS = 24 * 60 * 60 * 1000
/** How long a claim is trusted to be worked on before another request may take it over. */
const LEASE_MS = 30_000
/** How long a concurrent duplicate waits for the first request before answering 409. */
const WAIT_MS = 10_000
const KEY_RE = /^[\x21-\x7E]{1,255}$/

export interface IdempotentResult {
  record: RecordJson
  replayed: boolean
}

/** 1–255 printable ASCII characters without spaces (UUIDs, ULIDs, hashes…); anything else is 400. */
export function checkIdempotencyKey (raw: unknown): string {
  if (typeof raw !== 'string' || !KEY_RE.test(raw)) {
    throw new ValidationError('Idempotency-Key must be 1 to 255 printable ASCII characters without spaces', {
      field: 'Idempotency-Key'
    })
  }
  return raw
}

/** Stable JSON (sorted keys) so the same body always hashes the same whatever its key order. */
function canonical (v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

function isDuplicateKey (err: unknown): boolean {
  return (err as { code?: unknown })?.code === 11000
}

function isDuplicateId (err: unknown): boolean {
  const e = err as { keyPattern?: Record<string, unknown>; message?: string }
  return isDuplicateKey(err) && (e.keyPattern?._id !== undefined || /index: _id_ /.test(e.message ?? ''))
}

export async function ensureIdempotencyIndexes (db: Db): Promise<void> {
  const coll = db.collection(IDEMPOTENCY_COLLECTION)
  await coll.createIndex({ userId: 1, path: 1, key: 1 }, { unique: true, name: 'svc_idempotency_key' })
  await coll.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'svc_idempotency_ttl' })
}

/**
 * Idempotency keys on create, safe across replicas with MongoDB alone: a request first claims
 * `(userId, path, key)` through the unique index, then creates. The claim carries the record's
 * `_id` up front, so even a takeover of a stale claim can never insert a second record.
 */
export class IdempotencyKeys {
  readonly #coll: Collection

  constructor (db: Db) {
    this.#coll = db.collection(IDEMPOTENCY_COLLECTION)
  }

  async run (opts: {
    userId: string
    path: string
    key: string
    body: unknown
    create: (recordId: ObjectId) => Promise<RecordJson>
    find: (recordId: ObjectId) => Promise<RecordJson | null>
  }): Promise<IdempotentResult> {
    const { userId, path, key } = opts
    const hash = createHash('sha256').update(canonical(opts.body)).digest('hex')
    const deadline = Date.now() + WAIT_MS
    for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
      const now = new Date()
      const claim: Document = {
        userId,
        path,
        key,
        hash,
        state: 'pending',
        recordId: new ObjectId(),
        leaseUntil: new Date(now.getTime() + LEASE_MS),
        createdAt: now,
        expiresAt: new Date(now.getTime() + TTL_MS)
      }
      let claimed = false
      try {
        await this.#coll.insertOne(claim)
        claimed = true
      } catch (err) {
        if (!isDuplicateKey(err)) throw err // the only unique key besides a fresh _id is (userId, path, key)
      }
      if (claimed) return { record: await this.#complete(claim, opts), replayed: false }
      const existing = await this.#coll.findOne({ userId, path, key })
      if (existing == null) continue // released by a failed first request: claim it ourselves
      if (existing.hash !== hash) {
        throw new ConflictError('Idempotency-Key was already used with a different request body', {
          field: 'Idempotency-Key'
        })
      }
      if (existing.state === 'done') return { record: existing.response as RecordJson, replayed: true }
      if ((existing.leaseUntil as Date).getTime() < Date.now()) {
        // The first request died mid-way; take its claim over (same recordId, so still one record).
        const taken = await this.#coll.findOneAndUpdate(
          { _id: existing._id, state: 'pending', leaseUntil: existing.leaseUntil },
          { $set: { leaseUntil: new Date(Date.now() + LEASE_MS) } },
          { returnDocument: 'after' }
        )
        if (taken != null) return { record: await this.#complete(taken, opts), replayed: false }
        continue
      }
      if (Date.now() > deadline) {
        throw new ConflictError('a request with this Idempotency-Key is still in progress; retry later', {
          field: 'Idempotency-Key'
        })
      }
      await sleep(wait)
    }
  }

  async #complete (
    claim: Document,
    opts: { create: (id: ObjectId) => Promise<RecordJson>; find: (id: ObjectId) => Promise<RecordJson | null> }
  ): Promise<RecordJson> {
    let record: RecordJson
    try {
      record = await opts.create(claim.recordId as ObjectId)
    } catch (err) {
      const raced = isDuplicateId(err) ? await opts.find(claim.recordId as ObjectId) : null
      if (raced == null) {
        // Release the key so a corrected retry can succeed.
        await this.#coll.deleteOne({ _id: claim._id, state: 'pending' })
        throw err
      }
      record = raced
    }
    await this.#coll.updateOne(
      { _id: claim._id },
      { $set: { state: 'done', status: 201, response: record }, $unset: { leaseUntil: '' } }
    )
    return record
  }
}
