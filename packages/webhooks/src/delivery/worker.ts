import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { matches } from '../subscriptions/patterns.js'
import type { SubscriptionDoc, SubscriptionStore } from '../subscriptions/subscription-store.js'
import type { EventPayload, JobDoc, OutboxDoc, OutboxStore } from '../outbox/outbox-store.js'
import { deliveryBody } from './body.js'
import type { DeliveriesLog, DeliveryRow } from './deliveries-log.js'
import type { Sender, SendResult } from './sender.js'
import { DISABLE_AFTER, subscriptionUpdates } from './failure-count.js'

export interface WorkerDeps {
  outbox: OutboxStore
  subscriptions: SubscriptionStore
  deliveries: DeliveriesLog
  sender: Sender
  /** The record as `sub` may read it (its creator's field ACL); declared endpoints see it whole. */
  project: (ev: OutboxDoc, sub: SubscriptionDoc) => Record<string, unknown> | undefined
  retrySchedule: number[]
  leaseMs: number
  pollIntervalMs: number
  /** Parallel loops; each claims and delivers one batch at a time. */
  loops: number
  /** Rows one loop claims at once (its deliveries run concurrently). */
  batchSize: number
  log: FastifyBaseLogger
}

/**
 * Works the outbox: fans events out to one job per matching subscription, then delivers due
 * jobs. Rows are taken in leased batches (see OutboxStore), so any number of workers on one
 * database share the work, and a restart picks up what a dead process held once its lease ends.
 * Several loops run at once, so one slow receiver holds up one batch, not the process.
 */
export class DeliveryWorker {
  readonly #d: WorkerDeps
  #closed = false
  #loops: Array<Promise<void>> = []
  #sleepers = new Set<() => void>()

  constructor (deps: WorkerDeps) {
    this.#d = deps
  }

  start (): void {
    for (let i = 0; i < this.#d.loops; i++) this.#loops.push(this.#loop())
  }

  /** Something became due (a write, a test event): idle loops look now instead of at the next poll. */
  nudge (): void {
    for (const wake of this.#sleepers) wake()
  }

  /** Stops claiming and waits for attempts in flight (each bounded by the delivery timeout). */
  async close (): Promise<void> {
    this.#closed = true
    this.nudge()
    await Promise.all(this.#loops)
  }

  async #loop (): Promise<void> {
    while (!this.#closed) {
      let worked = false
      try {
        const fanned = await this.fanOut()
        const delivered = await this.deliver()
        worked = fanned + delivered > 0
      } catch (err) {
        this.#d.log.error({ err }, 'webhook worker step failed')
      }
      if (!worked && !this.#closed) await this.#sleep()
    }
  }

  async #sleep (): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => { clearTimeout(timer); this.#sleepers.delete(done); resolve() }
      const timer = setTimeout(done, this.#d.pollIntervalMs)
      this.#sleepers.add(done)
    })
  }

  /**
   * Due outbox events → one job per matching subscription, inserted under this claim's lease and
   * attempted at once (no second claim for a first attempt); answers how many events it took.
   */
  async fanOut (): Promise<number> {
    const { outbox, subscriptions, leaseMs, batchSize } = this.#d
    const events = await outbox.claimEvents(leaseMs, batchSize)
    if (events.length === 0) return 0
    const userIds = [...new Set(events.map((e) => e.userId).filter((u): u is string => u !== null))]
    const schemas = [...new Set(events.map((e) => `${e.version}/${e.path}`))]
    const subs = await subscriptions.candidates(userIds, schemas)
    const now = new Date()
    const jobs: JobDoc[] = []
    for (const ev of events) {
      for (const sub of subs) {
        const mine = sub.declaredBy !== undefined ? sub.declaredBy === `${ev.version}/${ev.path}` : sub.userId === ev.userId
        if (mine && matches(sub.events, ev.type)) jobs.push({ ...newJob(ev.id, sub._id, this.#payload(ev, sub), now), lease: events[0].lease, dueAt: events[0].dueAt })
      }
    }
    const fresh = await outbox.addJobs(jobs)
    await outbox.doneEvents(events)
    await this.#attempt(fresh, new Map(subs.map((s) => [s._id, s])))
    return events.length
  }

  #payload (ev: OutboxDoc, sub: SubscriptionDoc): EventPayload {
    const record = this.#d.project(ev, sub)
    return {
      id: ev.id,
      type: ev.type,
      version: ev.version,
      userId: ev.userId,
      ...(ev.recordId !== undefined ? { recordId: ev.recordId } : {}),
      ...(record !== undefined ? { record } : {}),
      ...(ev.numAffected !== undefined ? { filter: ev.filter ?? {}, numAffected: ev.numAffected } : {})
    }
  }

  /** Due jobs (retries, test events, leases run out): one attempt each; answers how many jobs it took. */
  async deliver (): Promise<number> {
    const { outbox, subscriptions, leaseMs, batchSize } = this.#d
    const jobs = await outbox.claimJobs(leaseMs, batchSize)
    if (jobs.length === 0) return 0
    const ids = [...new Set(jobs.map((j) => j.subscriptionId))]
    await this.#attempt(jobs, new Map((await subscriptions.col.find({ _id: { $in: ids } }).toArray()).map((s) => [s._id, s])))
    return jobs.length
  }

  /** One attempt of each claimed job, concurrently, then the batch's rows written in a few round trips. */
  async #attempt (jobs: JobDoc[], subs: Map<string, SubscriptionDoc>): Promise<void> {
    if (jobs.length === 0) return
    const { outbox, subscriptions, deliveries, sender, retrySchedule } = this.#d
    const settled: Array<{ job: JobDoc, set: Partial<JobDoc> }> = []
    const rows: DeliveryRow[] = []
    const outcomes: Array<{ sub: SubscriptionDoc, res: SendResult, at: Date }> = []
    await Promise.all(jobs.map(async (job) => {
      const sub = subs.get(job.subscriptionId)
      if (sub === undefined || !sub.active) {
        settled.push({ job, set: { state: 'dropped' } })
        return
      }
      const attempt = job.attempt + 1
      const at = new Date()
      const res = await sender.send({ url: sub.url, secret: sub.secret, type: job.event.type, deliveryId: job.deliveryId, body: deliveryBody(job.event, at) })
      outcomes.push({ sub, res, at })
      rows.push({ _id: `${job.deliveryId}:${attempt}`, subscriptionId: sub._id, deliveryId: job.deliveryId, event: job.event.type, attempt, status: res.ok ? 'success' : 'failure', responseCode: res.responseCode, durationMs: res.durationMs, error: res.error, at })
      const delay = retrySchedule[attempt - 1]
      if (res.ok) settled.push({ job, set: { state: 'delivered', attempt } })
      else if (delay === undefined) settled.push({ job, set: { state: 'failed', attempt } })
      else settled.push({ job, set: { state: 'pending', attempt, dueAt: new Date(Date.now() + delay * 1000) } })
    }))
    await deliveries.record(rows)
    await outbox.settleJobs(settled)
    const { updates, disable } = subscriptionUpdates(outcomes)
    if (updates.length > 0) await subscriptions.col.bulkWrite(updates, { ordered: false })
    if (disable.length > 0) {
      const res = await subscriptions.disableFailing(disable, DISABLE_AFTER)
      if (res > 0) this.#d.log.warn({ subscriptionIds: disable }, 'webhook subscription disabled after consecutive failures')
    }
  }
}

export function newJob (eventId: string, subscriptionId: string, event: EventPayload, now: Date): JobDoc {
  return { _id: `${eventId}:${subscriptionId}`, deliveryId: randomUUID(), subscriptionId, event, attempt: 0, state: 'pending', dueAt: now, createdAt: now }
}
