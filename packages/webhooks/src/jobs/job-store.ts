import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { PublishedEvent } from '@svc/core/kit'
import { insertIgnoringDuplicates } from './insert-once.js'

export const JOBS_COLLECTION = 'webhook_jobs'

/** What a delivery body is built from (the spec's single-record, bulk and `webhook.test` bodies). */
export interface EventPayload extends PublishedEvent {
  /** `webhook.test` only. */
  subscriptionId?: string
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
  /** Whose share of the delivery workers it takes: the subscription's tenant (`declared:<schema>` for operator endpoints). Rows of older versions lack it. */
  tenant?: string
  event: EventPayload
  attempt: number
  state: JobState
  dueAt: Date
  lease?: string
  createdAt: Date
}

export class JobStore {
  readonly jobs: Collection<JobDoc>

  constructor (db: Db) {
    this.jobs = db.collection<JobDoc>(JOBS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.jobs.createIndex({ state: 1, dueAt: 1 })
  }

  /**
   * Due jobs, oldest first, leaving out subscriptions and tenants that already use their share
   * of this process's workers: a tenant with a flood of slow deliveries never hides another's
   * due job behind its own.
   */
  async candidates (busySubs: string[], busyTenants: string[], limit: number): Promise<JobDoc[]> {
    const filter = {
      state: 'pending' as const,
      dueAt: { $lte: new Date() },
      ...(busySubs.length > 0 ? { subscriptionId: { $nin: busySubs } } : {}),
      ...(busyTenants.length > 0 ? { tenant: { $nin: busyTenants } } : {})
    }
    return await this.jobs.find(filter, { sort: { dueAt: 1 }, limit }).toArray()
  }

  /**
   * Takes the given jobs (as read) for `leaseMs` in one `updateMany` that re-checks each is still
   * due (atomic per document), so a job another worker took meanwhile is not taken twice. When
   * every one was taken that is the claim (one round trip); otherwise the rows carrying this
   * claim's lease are.
   */
  async claim (due: JobDoc[], leaseMs: number): Promise<JobDoc[]> {
    if (due.length === 0) return []
    const now = new Date()
    const ids = due.map((j) => j._id)
    const set = { dueAt: new Date(now.getTime() + leaseMs), lease: randomUUID() }
    const res = await this.jobs.updateMany({ _id: { $in: ids }, state: 'pending', dueAt: { $lte: now } }, { $set: set })
    if (res.modifiedCount === due.length) return due.map((j) => ({ ...j, ...set }))
    if (res.modifiedCount === 0) return []
    return await this.jobs.find({ _id: { $in: ids }, lease: set.lease }).toArray()
  }

  /** Inserts jobs, skipping ones a previous (crashed) fan-out of the same event already made; answers the inserted ones. */
  async addJobs (jobs: JobDoc[]): Promise<JobDoc[]> {
    return await insertIgnoringDuplicates(this.jobs, jobs)
  }

  /** Settles claimed jobs (next attempt or final state); a job whose lease was lost is left alone. */
  async settleJobs (settled: Array<{ job: JobDoc; set: Partial<JobDoc> }>): Promise<void> {
    if (settled.length === 0) return
    await this.jobs.bulkWrite(
      settled.map(({ job, set }) => ({
        updateOne: { filter: { _id: job._id, lease: job.lease }, update: { $set: set, $unset: { lease: '' } } }
      })),
      { ordered: false }
    )
  }
}

export function newJob (
  eventId: string,
  subscriptionId: string,
  tenant: string,
  event: EventPayload,
  now: Date
): JobDoc {
  return {
    _id: `${eventId}:${subscriptionId}`,
    deliveryId: randomUUID(),
    subscriptionId,
    tenant,
    event,
    attempt: 0,
    state: 'pending',
    dueAt: now,
    createdAt: now
  }
}
