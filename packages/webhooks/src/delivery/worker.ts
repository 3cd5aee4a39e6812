import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { matches } from '../subscriptions/patterns.js'
import type { SubscriptionDoc, SubscriptionStore } from '../subscriptions/subscription-store.js'
import type { EventPayload, JobDoc, OutboxDoc, OutboxStore } from '../outbox/outbox-store.js'
import { deliveryBody } from './body.js'
import type { DeliveriesLog } from './deliveries-log.js'
import type { Sender } from './sender.js'

/** Spec: 10 consecutive failures disable a subscription. */
export const DISABLE_AFTER = 10

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
  concurrency: number
  log: FastifyBaseLogger
}

/**
 * Works the outbox: fans each event out to one job per matching subscription, then delivers due
 * jobs. Every row is taken with a lease (see OutboxStore), so any number of workers on one
 * database share the work, and a restart picks up what a dead process held once its lease ends.
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
    for (let i = 0; i < this.#d.concurrency; i++) this.#loops.push(this.#loop())
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
        worked = (await this.fanOutOne()) || (await this.deliverOne())
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

  /** One outbox event → one job per matching subscription; false when none is due. */
  async fanOutOne (): Promise<boolean> {
    const { outbox, subscriptions, leaseMs } = this.#d
    const ev = await outbox.claimEvent(leaseMs)
    if (ev === null) return false
    const subs = (await subscriptions.candidates(ev.userId, `${ev.version}/${ev.path}`)).filter((s) => matches(s.events, ev.type))
    const now = new Date()
    await outbox.addJobs(subs.map((sub) => {
      const record = this.#d.project(ev, sub)
      const payload: EventPayload = {
        id: ev.id,
        type: ev.type,
        version: ev.version,
        userId: ev.userId,
        ...(ev.recordId !== undefined ? { recordId: ev.recordId } : {}),
        ...(record !== undefined ? { record } : {}),
        ...(ev.numAffected !== undefined ? { filter: ev.filter ?? {}, numAffected: ev.numAffected } : {})
      }
      return newJob(ev.id, sub._id, payload, now)
    }))
    await outbox.doneEvent(ev)
    if (subs.length > 0) this.nudge()
    return true
  }

  /** One due attempt; false when none is due. */
  async deliverOne (): Promise<boolean> {
    const { outbox, subscriptions, deliveries, sender, retrySchedule, leaseMs } = this.#d
    const job = await outbox.claimJob(leaseMs)
    if (job === null) return false
    const sub = await subscriptions.col.findOne({ _id: job.subscriptionId })
    if (sub === null || !sub.active) {
      await outbox.settleJob(job, { state: 'dropped' })
      return true
    }
    const attempt = job.attempt + 1
    const at = new Date()
    const res = await sender.send({ url: sub.url, secret: sub.secret, type: job.event.type, deliveryId: job.deliveryId, body: deliveryBody(job.event, at) })
    await deliveries.record({
      _id: `${job.deliveryId}:${attempt}`,
      subscriptionId: sub._id,
      deliveryId: job.deliveryId,
      event: job.event.type,
      attempt,
      status: res.ok ? 'success' : 'failure',
      responseCode: res.responseCode,
      durationMs: res.durationMs,
      error: res.error,
      at
    })
    if (res.ok) {
      await outbox.settleJob(job, { state: 'delivered', attempt })
      await subscriptions.col.updateOne({ _id: sub._id }, { $set: { failureCount: 0, lastDeliveryAt: at } })
      return true
    }
    const after = await subscriptions.col.findOneAndUpdate({ _id: sub._id }, { $inc: { failureCount: 1 } }, { returnDocument: 'after' })
    if (after !== null && after.active && after.failureCount >= DISABLE_AFTER) {
      await subscriptions.col.updateOne({ _id: sub._id, failureCount: { $gte: DISABLE_AFTER } }, { $set: { active: false, updatedAt: new Date() } })
      this.#d.log.warn({ subscriptionId: sub._id, failureCount: after.failureCount }, 'webhook subscription disabled')
    }
    const delay = retrySchedule[attempt - 1]
    if (delay === undefined) await outbox.settleJob(job, { state: 'failed', attempt })
    else await outbox.settleJob(job, { state: 'pending', attempt, dueAt: new Date(Date.now() + delay * 1000) })
    return true
  }
}

export function newJob (eventId: string, subscriptionId: string, event: EventPayload, now: Date): JobDoc {
  return { _id: `${eventId}:${subscriptionId}`, deliveryId: randomUUID(), subscriptionId, event, attempt: 0, state: 'pending', dueAt: now, createdAt: now }
}
