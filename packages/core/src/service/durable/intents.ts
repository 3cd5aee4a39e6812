import type { Collection, Db, Document, ObjectId } from 'mongodb'

/** One document a durable effect inserts: `document._id` is required (a replay is idempotent by it). */
export interface DurableDoc {
  collection: string
  document: Document & { _id: unknown }
}

export const INTENTS_COLLECTION = 'svc_write_intents'
/** How long a completed intent stays as a marker (see `slotKey`): far longer than any request. */
const DONE_TTL_SECONDS = 60 * 60

/**
 * A record's state as far as the write-ahead protocol goes: absent (`null`), or the `updatedAt`
 * of its last write in ms (every durable write moves it strictly forward), or `-1` when a record
 * written outside svc has none.
 */
export type RecordState = number | null

export function stateOf (doc: Document | null | undefined): RecordState {
  if (doc == null) return null
  return doc.updatedAt instanceof Date ? doc.updatedAt.getTime() : -1
}

/**
 * The intent's `_id`: one record leaving one state. Only one writer can hold it, so a record
 * changes from a given state through exactly one intent, and a completed intent stays (for
 * `DONE_TTL_SECONDS`) as the proof that the record left that state — which makes the
 * reconciler's "did it happen?" decisive even when later writes moved the record on.
 */
export function slotKey (collection: string, recordId: ObjectId, from: RecordState): string {
  return `${collection}:${recordId.toHexString()}:${from === null ? 'new' : String(from)}`
}

export interface Intent {
  _id: string
  state: 'pending' | 'done'
  /** Collection of the record. */
  coll: string
  recordId: ObjectId
  from: RecordState
  to: RecordState
  /** The write this intent belongs to (a bulk write has one intent per record). */
  group: string
  /** The first intent of a group: it carries the documents of the write as a whole. */
  leader: boolean
  /** Documents of this record's results (inserted when this record's write happened). */
  effects?: DurableDoc[]
  /** Leader only: documents of bulk results (inserted when any record of the group was written). */
  groupEffects?: DurableDoc[]
  /** Until then the writer owns the intent; after it, a reconciler may decide it. */
  leaseUntil: Date
  createdAt: Date
  /** Set on completion: the marker's expiry (TTL index). */
  expiresAt?: Date
}

export class IntentStore {
  readonly coll: Collection<Intent>

  constructor (db: Db) {
    this.coll = db.collection<Intent>(INTENTS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.coll.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'svc_intents_ttl' })
    await this.coll.createIndex({ state: 1, leaseUntil: 1 }, { name: 'svc_intents_pending' })
    await this.coll.createIndex({ group: 1 }, { name: 'svc_intents_group' })
  }

  /**
   * Marks intents of `group` done (the write happened and its effects are in): they stay as
   * markers. The group guards against touching another write's intent on the same slot.
   */
  async complete (group: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    const expiresAt = new Date(Date.now() + DONE_TTL_SECONDS * 1000)
    await this.coll.updateMany(
      { _id: { $in: ids }, group },
      { $set: { state: 'done', expiresAt }, $unset: { effects: '', groupEffects: '' } }
    )
  }

  /** Drops pending intents of `group` whose write did not happen (the record is still in their `from` state). */
  async release (group: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    await this.coll.deleteMany({ _id: { $in: ids }, group, state: 'pending' })
  }

  /** Extends the lease of a group's pending intents; false when a reconciler took some already. */
  async renew (group: string, count: number, leaseMs: number): Promise<boolean> {
    const res = await this.coll.updateMany(
      { group, state: 'pending' },
      { $set: { leaseUntil: new Date(Date.now() + leaseMs) } }
    )
    return res.matchedCount === count
  }

  async exists (id: string): Promise<boolean> {
    return (await this.coll.countDocuments({ _id: id }, { limit: 1 })) > 0
  }
}
