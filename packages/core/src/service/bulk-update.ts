import { ObjectId, type ClientSession, type Collection, type Document } from 'mongodb'
import { toJson } from '../values/convert.js'
import { ValidationError } from '../errors.js'
import { MAX_BULK_RECORDS } from '../values/limits.js'
import type { RecordJson, TombstoneUpdate } from './types.js'
import { nextStamp, type Target } from './durable/commit.js'
import { stateOf } from './durable/intents.js'
import { applyChange, asRead } from './write-path.js'

export interface BulkPlan {
  /** One per record the write changes (for an upsert: the record it creates). */
  targets: Target[]
  /** Each changed record's before/after image, when asked for. */
  records?: Array<{ before: RecordJson; after: RecordJson }>
  /** The upsert's new record, when nothing matched and a seed was given. */
  created?: RecordJson
  write: (session?: ClientSession) => Promise<string[]>
}

/**
 * Bulk update in two steps: the caller's filter is evaluated by a read bounded by `maxTimeMS`,
 * then the update is pinned to the ids it found (and still matching). A slow filter therefore
 * times out before anything is written (a multi-update stopped by its time bound would leave
 * some records changed), and a record inserted meanwhile is never changed without being seen.
 * Every record gets one new `updatedAt`, after each one's own, so the write-ahead protocol can
 * tell per record whether the write landed. In a transaction (durable effects without intents)
 * the update is also guarded per record on the state it was read in. When nothing matches,
 * `seed` (see upsertSeed) is inserted instead.
 */
export async function planBulkUpdate (
  collection: Collection,
  filter: Document,
  input: { set: Record<string, unknown>; unset: string[] },
  opts: { maxTimeMS: number; seed: Document | null; images: boolean }
): Promise<BulkPlan> {
  const docs = await collection
    .find(filter, {
      limit: MAX_BULK_RECORDS + 1,
      maxTimeMS: opts.maxTimeMS,
      ...(opts.images ? {} : { projection: { _id: 1, updatedAt: 1 } })
    })
    .toArray()
  // One write (and, with durable effects, one transaction) per call: bounded like createMany/deleteMany, refused before anything is written.
  if (docs.length > MAX_BULK_RECORDS) {
    throw new ValidationError(`the filter matches more than ${MAX_BULK_RECORDS} records: narrow it`, {
      field: 'filter'
    })
  }
  if (docs.length === 0) {
    if (opts.seed === null) return { targets: [], records: [], write: async () => [] }
    const now = new Date()
    const doc: Document = { _id: new ObjectId(), ...opts.seed, createdAt: now, updatedAt: now }
    const created = toJson<RecordJson>(doc)
    return {
      targets: [{ recordId: doc._id, from: null, to: now.getTime() }],
      records: [],
      created,
      write: async (session) => {
        await collection.insertOne({ ...doc }, { session })
        return [created._id]
      }
    }
  }
  const latest = Math.max(...docs.map((d) => stateOf(d) ?? -1))
  const updatedAt = nextStamp(latest)
  const change: TombstoneUpdate = { $set: { ...input.set, updatedAt } }
  if (input.unset.length > 0) change.$unset = Object.fromEntries(input.unset.map((k) => [k, '' as const]))
  const ids = docs.map((d) => d._id)
  return {
    targets: docs.map((d) => ({ recordId: d._id, from: stateOf(d), to: updatedAt.getTime() })),
    ...(opts.images
      ? {
          records: docs.map((d) => ({
            before: toJson<RecordJson>(d),
            after: toJson<RecordJson>(applyChange(d, change))
          }))
        }
      : {}),
    write: async (session) => {
      if (session?.inTransaction() === true) {
        // No intent holds these records' states: each is guarded on the state it was read in,
        // and one that moved meanwhile makes the whole transaction plan again.
        const res = await collection.updateMany({ $and: [filter, { $or: docs.map(asRead) }] }, change, { session })
        return res.matchedCount === ids.length ? ids.map((id) => String(id)) : []
      }
      const res = await collection.updateMany({ $and: [filter, { _id: { $in: ids } }] }, change, { session })
      if (res.matchedCount === ids.length) return ids.map((id) => String(id))
      const landed = await collection
        .find({ _id: { $in: ids }, updatedAt }, { projection: { _id: 1 }, session })
        .toArray()
      return landed.map((d) => String(d._id))
    }
  }
}
