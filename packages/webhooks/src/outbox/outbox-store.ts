import { randomUUID } from 'node:crypto'
import type { Collection, Db, Document } from 'mongodb'

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

  /** Claims the oldest due row of a collection for `leaseMs`: one claimant per row, atomically. */
  async #claim<T extends Document> (col: Collection<T>, filter: Document, leaseMs: number): Promise<T | null> {
    const now = Date.now()
    const lease = randomUUID()
    const doc = await col.findOneAndUpdate(
      { ...filter, dueAt: { $lte: new Date(now) } } as never,
      { $set: { dueAt: new Date(now + leaseMs), lease } } as never,
      { sort: { dueAt: 1 }, returnDocument: 'after' }
    )
    return doc as T | null
  }

  async claimEvent (leaseMs: number): Promise<OutboxDoc | null> {
    return await this.#claim(this.outbox, {}, leaseMs)
  }

  async claimJob (leaseMs: number): Promise<JobDoc | null> {
    return await this.#claim(this.jobs, { state: 'pending' }, leaseMs)
  }

  /** Inserts jobs, ignoring ones a previous (crashed) fan-out of the same event already made. */
  async addJobs (jobs: JobDoc[]): Promise<void> {
    if (jobs.length === 0) return
    try {
      await this.jobs.insertMany(jobs, { ordered: false })
    } catch (err) {
      const codes = ((err as { writeErrors?: Array<{ code?: number }> }).writeErrors ?? []).map((e) => e.code)
      if ((err as { code?: number }).code !== 11000 && (codes.length === 0 || codes.some((c) => c !== 11000))) throw err
    }
  }

  /** Drops a fanned-out event, unless its lease was lost to another worker meanwhile. */
  async doneEvent (ev: OutboxDoc): Promise<void> {
    await this.outbox.deleteOne({ _id: ev._id, lease: ev.lease })
  }

  /** Settles a claimed job (next attempt or final state); false when the lease was lost. */
  async settleJob (job: JobDoc, set: Partial<JobDoc>): Promise<boolean> {
    const res = await this.jobs.updateOne({ _id: job._id, lease: job.lease }, { $set: set, $unset: { lease: '' } })
    return res.modifiedCount === 1
  }
}
