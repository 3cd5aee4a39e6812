import type { Collection, Db } from 'mongodb'
import { EVENTS_COLLECTION, loggedEvent, type EventDoc, type LoggedEvent } from './event-doc.js'

export const CONSUMERS_COLLECTION = 'svc_event_consumers'

/** A durable consumer's checkpoint: every event up to `seq` is handled. */
export interface ConsumerDoc {
  _id: string
  seq: number
  createdAt: Date
  updatedAt: Date
}

/**
 * The `svc_events` collection and its reads. Readers only ever see stamped events, by `seq`; on
 * a replica set they read majority-committed data, so a stamp a failover rolls back is never seen.
 */
export class EventStore {
  /** Writes (inserts come from core's durable effects) and the sequencer's reads. */
  readonly coll: Collection<EventDoc>
  readonly consumers: Collection<ConsumerDoc>
  /** Consumers' reads. */
  readonly #reads: Collection<EventDoc>

  constructor (db: Db, majorityReads: boolean) {
    this.coll = db.collection<EventDoc>(EVENTS_COLLECTION)
    this.consumers = db.collection<ConsumerDoc>(CONSUMERS_COLLECTION)
    this.#reads = majorityReads
      ? db.collection<EventDoc>(EVENTS_COLLECTION, { readConcern: { level: 'majority' } })
      : this.coll
  }

  async ensureIndexes (): Promise<void> {
    // Unique: a second stamp with a used number fails loudly instead of forking the order.
    await this.coll.createIndex(
      { seq: 1 },
      { name: 'svc_events_seq', unique: true, partialFilterExpression: { seq: { $exists: true } } }
    )
    // Only unstamped events are in it: the sequencer's poll stays small whatever the retention.
    await this.coll.createIndex(
      { pending: 1 },
      { name: 'svc_events_pending', partialFilterExpression: { pending: { $exists: true } } }
    )
    await this.coll.createIndex({ at: 1 }, { name: 'svc_events_at' })
  }

  /** Stamped events after `afterSeq`, in order, at most `limit`. */
  async read (afterSeq: number, limit: number): Promise<LoggedEvent[]> {
    const docs = await this.#reads
      .find({ seq: { $gt: afterSeq } }, { sort: { seq: 1 }, limit, batchSize: limit })
      .toArray()
    return docs.map((d) => loggedEvent(d as EventDoc & { seq: number }))
  }

  /** The highest stamped `seq` (0 when none is stored). */
  async lastSeq (): Promise<number> {
    const [top] = await this.#reads
      .find({ seq: { $exists: true } }, { sort: { seq: -1 }, limit: 1, projection: { seq: 1 } })
      .toArray()
    return top?.seq ?? 0
  }

  /** The lowest checkpoint of the durable consumers (null when there is none). */
  async lowestCheckpoint (): Promise<number | null> {
    const [low] = await this.consumers.find({}, { sort: { seq: 1 }, limit: 1 }).toArray()
    return low?.seq ?? null
  }
}
