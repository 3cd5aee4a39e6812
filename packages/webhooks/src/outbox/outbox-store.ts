import { randomUUID } from 'node:crypto'
import type { Collection, Db, Document } from 'mongodb'
import { insertIgnoringDuplicates } from './insert-once.js'

export const OUTBOX_COLLECTION = 'webhook_outbox'
export const JOBS_COLLECTION = 'webhook_jobs'

/** What a delivery body is built from (the spec's single-record, bulk and `webhook.test` bodies). */
export interface EventPayload {
  /** Event id: the same for every subscription the event reaches. */
  id: string
  type: string
  version: string
  userId: string | null
  recordId?: string
  record?: Record<string, unknown>
  filter?: Record<string, unknown>
  numAffected?: number
  /** `webhook.test` only. */
  subscriptionId?: string
}

/**
 * An outbox row: one record event, written with the record write (core's durable effects), fanned
 * out to matching subscriptions by the worker, then removed. `path` keys the schema-declared endpoints.
 */
export interface OutboxDoc extends EventPayload {
  _id: string
  path: string
  /** The record as written, unprojected: projected per subscriber at fan-out. */
  record?: Record<string, unknown>
  createdAt: Date
  /** Due for fan-out; pushed forward by a claim (the lease). */
  dueAt: Date
  lease?: string
}

export type JobState = 'pending' | 'delivered' | 'failed' | 'dropped'

/**
 * One event for one subscription, with its retry state on the row: `attempt` attempts made so
 * far, `dueAt` the next one. A claim moves `dueAt` to the lease's end and stamps `lease`; a
 * worker that dies leaves the row to be claimed again once the lease runs out.
 */
export interface JobDoc {
  /** `<eventId>:<subscriptionId>`: a replayed fan-out inserts nothing twice. */
  _id: string
  /** `X-svc-Delivery`: the same across retries. */
  deliveryId: string
  subscriptionId: string
  event: EventPayload
  attempt: number
  state: JobState
  dueAt: Date
  lease?: string
  createdAt: Date
}

export class OutboxStore {
  readonly outbox: Collection<OutboxDoc>
  readonly jobs: Collection<JobDoc>

  constructor (db: Db) {
    this.outbox = db.collection<OutboxDoc>(OUTBOX_COLLECTION)
    this.jobs = db.collection<JobDoc>(JOBS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.outbox.createIndex({ dueAt: 1 })
    await this.jobs.createIndex({ state: 1, dueAt: 1 })
  }

  /**
   * Claims up to `limit` due rows for `leaseMs`: the oldest due ids are read, then taken by one
   * `updateMany` that re-checks `dueAt` per row (atomic per document), so a row another worker
   * took meanwhile is not taken twice; the rows carrying this claim's lease are the claim.
   * One round trip per batch instead of per row: at several hundred deliveries a second the
   * database round trips, not the HTTP calls, are the cost.
   */
  async #claim<T extends { _id: string }> (col: Collection<T>, filter: Document, leaseMs: number, limit: number): Promise<T[]> {
    const now = new Date()
    const due = { ...filter, dueAt: { $lte: now } }
    const ids = (await col.find(due as never, { projection: { _id: 1 } }).sort({ dueAt: 1 }).limit(limit).toArray()).map((d) => d._id)
    if (ids.length === 0) return []
    const lease = randomUUID()
    const res = await col.updateMany({ ...due, _id: { $in: ids } } as never, { $set: { dueAt: new Date(now.getTime() + leaseMs), lease } } as never)
    if (res.modifiedCount === 0) return []
    return await col.find({ _id: { $in: ids }, lease } as never).toArray() as T[]
  }

  async claimEvents (leaseMs: number, limit: number): Promise<OutboxDoc[]> {
    return await this.#claim(this.outbox, {}, leaseMs, limit)
  }

  async claimJobs (leaseMs: number, limit: number): Promise<JobDoc[]> {
    return await this.#claim(this.jobs, { state: 'pending' }, leaseMs, limit)
  }

  /** Inserts jobs, skipping ones a previous (crashed) fan-out of the same event already made; answers the inserted ones. */
  async addJobs (jobs: JobDoc[]): Promise<JobDoc[]> {
    return await insertIgnoringDuplicates(this.jobs, jobs)
  }

  /** Drops fanned-out events, except any whose lease was lost to another worker meanwhile. */
  async doneEvents (events: OutboxDoc[]): Promise<void> {
    if (events.length === 0) return
    await this.outbox.deleteMany({ _id: { $in: events.map((e) => e._id) }, lease: events[0].lease })
  }

  /** Settles claimed jobs (next attempt or final state); a job whose lease was lost is left alone. */
  async settleJobs (settled: Array<{ job: JobDoc, set: Partial<JobDoc> }>): Promise<void> {
    if (settled.length === 0) return
    await this.jobs.bulkWrite(settled.map(({ job, set }) => ({
      updateOne: { filter: { _id: job._id, lease: job.lease }, update: { $set: set, $unset: { lease: '' } } }
    })), { ordered: false })
  }
}
