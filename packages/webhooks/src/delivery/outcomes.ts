import type { FastifyBaseLogger } from 'fastify'
import type { JobDoc, JobStore } from '../jobs/job-store.js'
import type { SubscriptionDoc, SubscriptionStore } from '../subscriptions/subscription-store.js'
import type { DeliveriesLog, DeliveryRow } from './deliveries-log.js'
import { DISABLE_AFTER, subscriptionUpdates, type Health } from './failure-count.js'
import type { SendResult } from './sender.js'

/** A finished job: attempted (`res`), or dropped because its subscription is gone or disabled. */
export interface Outcome {
  job: JobDoc
  sub?: SubscriptionDoc
  res?: SendResult
  at: Date
}

export interface OutcomeDeps {
  jobs: JobStore
  subscriptions: SubscriptionStore
  deliveries: DeliveriesLog
  retrySchedule: number[]
  latencyBudgetMs: number
  log: FastifyBaseLogger
}

/**
 * Writes what finished attempts leave behind — attempt rows, each job's next state, the
 * subscriptions' health — in a few round trips per batch: attempts finish one by one, and
 * whatever finishes while a batch is being written goes in the next one.
 */
export class OutcomeWriter {
  readonly #d: OutcomeDeps
  #buffer: Outcome[] = []
  #writing: Promise<void> | null = null

  constructor (deps: OutcomeDeps) {
    this.#d = deps
  }

  push (outcome: Outcome): void {
    this.#buffer.push(outcome)
    this.#writing ??= this.#drain().finally(() => {
      this.#writing = null
    })
  }

  /** Resolves once everything pushed so far is written. */
  async flushed (): Promise<void> {
    while (this.#writing !== null) await this.#writing
  }

  async #drain (): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.splice(0)
      try {
        await this.#write(batch)
      } catch (err) {
        // The jobs stay leased and are attempted again when their lease ends (at least once).
        this.#d.log.error({ err, jobs: batch.length }, 'webhook delivery outcomes not written')
      }
    }
  }

  async #write (batch: Outcome[]): Promise<void> {
    const { jobs, subscriptions, deliveries, retrySchedule, latencyBudgetMs } = this.#d
    const settled: Array<{ job: JobDoc; set: Partial<JobDoc> }> = []
    const rows: DeliveryRow[] = []
    const health: Health[] = []
    for (const { job, sub, res, at } of batch) {
      if (sub === undefined || res === undefined) {
        settled.push({ job, set: { state: 'dropped' } })
        continue
      }
      const attempt = job.attempt + 1
      const slow = res.ok && res.durationMs > latencyBudgetMs
      const error = slow
        ? `slow: answered in ${res.durationMs} ms, over the ${latencyBudgetMs} ms latency budget`
        : res.error
      rows.push({
        _id: `${job.deliveryId}:${attempt}`,
        subscriptionId: sub._id,
        deliveryId: job.deliveryId,
        event: job.event.type,
        attempt,
        status: res.ok ? 'success' : 'failure',
        responseCode: res.responseCode,
        durationMs: res.durationMs,
        error,
        at
      })
      health.push({ sub, healthy: res.ok && !slow, delivered: res.ok, at })
      const delay = retrySchedule[attempt - 1]
      if (res.ok) settled.push({ job, set: { state: 'delivered', attempt } })
      else if (delay === undefined) settled.push({ job, set: { state: 'failed', attempt } })
      else settled.push({ job, set: { state: 'pending', attempt, dueAt: new Date(Date.now() + delay * 1000) } })
    }
    await deliveries.record(rows)
    // The subscriptions first: a retry becomes due only once its subscription's health (and a disable) is stored.
    const { updates, disable } = subscriptionUpdates(health)
    if (updates.length > 0) await subscriptions.col.bulkWrite(updates, { ordered: false })
    if (disable.length > 0 && (await subscriptions.disableFailing(disable, DISABLE_AFTER)) > 0) {
      this.#d.log.warn(
        { subscriptionIds: disable },
        'webhook subscription disabled after consecutive failures or slow answers'
      )
    }
    await jobs.settleJobs(settled)
  }
}
