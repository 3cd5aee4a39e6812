import type { FastifyBaseLogger } from 'fastify'
import type { JobDoc, JobStore } from '../jobs/job-store.js'
import { tenantOf, type SubscriptionDoc, type SubscriptionStore } from '../subscriptions/subscription-store.js'
import { deliveryBody } from './body.js'
import type { OutcomeWriter } from './outcomes.js'
import type { Sender } from './sender.js'

export interface SchedulerDeps {
  jobs: JobStore
  subscriptions: SubscriptionStore
  sender: Sender
  outcomes: OutcomeWriter
  leaseMs: number
  pollIntervalMs: number
  /** Attempts in flight in this process. */
  concurrency: number
  /** Attempts in flight per subscription (one while its `failureCount` is above 0). */
  perSubscription: number
  /** Attempts in flight per tenant. */
  perTenant: number
  log: FastifyBaseLogger
}

/**
 * Runs delivery attempts, each on its own as soon as a slot frees (never a batch waiting for its
 * slowest receiver), within three limits: `concurrency` in the process, `perSubscription` per
 * subscription (1 while it is failing or slow: one probe at a time) and `perTenant` per tenant.
 * Due jobs are claimed oldest first among the subscriptions and tenants below their limits, so a
 * tenant whose receiver is slow or down delays its own deliveries only.
 */
export class DeliveryScheduler {
  readonly #d: SchedulerDeps
  readonly #inFlight = new Set<Promise<void>>()
  readonly #bySub = new Map<string, number>()
  readonly #byTenant = new Map<string, number>()
  /** Subscriptions with attempts in flight (their limit depends on their health). */
  readonly #busy = new Map<string, SubscriptionDoc>()
  /** Due jobs read but not started yet (their subscription or tenant was at its limit), oldest first. */
  #due: JobDoc[] = []
  #dueAt = 0
  /** New jobs may exist that `#due` does not hold (a fan-out here): read again before picking. */
  #stale = true
  #backlog = false
  #closed = true
  #dirty = false
  #wake: (() => void) | null = null
  #loop: Promise<void> = Promise.resolve()

  constructor (deps: SchedulerDeps) {
    this.#d = deps
  }

  start (): void {
    this.#closed = false
    this.#loop = this.#run()
  }

  /** New jobs are due (a fan-out, a test event): look now instead of at the next poll. */
  nudge (): void {
    this.#stale = true
    this.#kick()
  }

  /** Runs the loop again now (a slot freed). */
  #kick (): void {
    this.#dirty = true
    this.#wake?.()
  }

  /** Stops claiming, waits for attempts in flight (each bounded by the delivery timeout) and their rows. */
  async close (): Promise<void> {
    this.#closed = true
    this.#kick()
    await this.#loop
    await Promise.all(this.#inFlight)
    await this.#d.outcomes.flushed()
  }

  async #run (): Promise<void> {
    while (!this.#closed) {
      this.#dirty = false
      let more = false
      try {
        more = await this.#fill()
      } catch (err) {
        this.#d.log.error({ err }, 'webhook delivery scheduling failed')
      }
      if (!this.#closed && !more && !this.#dirty) await this.#sleep()
    }
  }

  async #sleep (): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null
        resolve()
      }, this.#d.pollIntervalMs)
      this.#wake = () => {
        clearTimeout(timer)
        this.#wake = null
        resolve()
      }
    })
  }

  #limit (subId: string): number {
    return (this.#busy.get(subId)?.failureCount ?? 0) > 0 ? 1 : this.#d.perSubscription
  }

  /**
   * Claims what fits in the free slots and starts it; true when more may be claimable at once.
   * Due jobs are read in pages and kept: while they last, a freed slot costs a claim, not a query.
   */
  async #fill (): Promise<boolean> {
    const free = this.#d.concurrency - this.#inFlight.size
    if (free <= 0) return false
    const fresh = this.#stale || this.#due.length === 0 || performance.now() - this.#dueAt > this.#d.pollIntervalMs
    if (fresh) await this.#read(free)
    let picked = await this.#pick(free)
    // Everything kept belongs to subscriptions or tenants at their limit: look past them.
    if (picked.length === 0 && !fresh && this.#due.length > 0) {
      await this.#read(free)
      picked = await this.#pick(free)
    }
    this.#backlog = this.#due.length > 0
    if (picked.length === 0) return false
    const claimed = await this.#d.jobs.claim(
      picked.map((p) => p.job),
      this.#d.leaseMs
    )
    const subs = new Map(picked.map((p) => [p.job._id, p.sub]))
    for (const job of claimed) this.#start(job, subs.get(job._id))
    return claimed.length > 0 && this.#due.length > 0 && this.#inFlight.size < this.#d.concurrency
  }

  /** Reads due jobs oldest first, past the subscriptions and tenants already at their limit. */
  async #read (free: number): Promise<void> {
    this.#stale = false
    const busySubs = [...this.#bySub].filter(([id, n]) => n >= this.#limit(id)).map(([id]) => id)
    const busyTenants = [...this.#byTenant].filter(([, n]) => n >= this.#d.perTenant).map(([t]) => t)
    this.#due = await this.#d.jobs.candidates(busySubs, busyTenants, Math.max(free * 4, 64))
    this.#dueAt = performance.now()
  }

  /** Takes from `#due`, in order, what fits in `free` slots and the subscriptions' and tenants' limits. */
  async #pick (free: number): Promise<Array<{ job: JobDoc; sub: SubscriptionDoc | undefined }>> {
    if (this.#due.length === 0) return []
    const subs = await this.#d.subscriptions.byIds([...new Set(this.#due.map((j) => j.subscriptionId))])
    for (const [id, sub] of subs) if (this.#busy.has(id)) this.#busy.set(id, sub)
    const bySub = new Map(this.#bySub)
    const byTenant = new Map(this.#byTenant)
    const picked: Array<{ job: JobDoc; sub: SubscriptionDoc | undefined }> = []
    const kept: JobDoc[] = []
    for (const job of this.#due) {
      const sub = subs.get(job.subscriptionId)
      if (picked.length >= free) {
        kept.push(job)
        continue
      }
      // A job of a removed or disabled subscription is dropped without a request: it needs no share.
      if (sub === undefined || !sub.active) {
        picked.push({ job, sub })
        continue
      }
      const tenant = job.tenant ?? tenantOf(sub)
      const limit = sub.failureCount > 0 ? 1 : this.#d.perSubscription
      if ((bySub.get(sub._id) ?? 0) >= limit || (byTenant.get(tenant) ?? 0) >= this.#d.perTenant) {
        kept.push(job)
        continue
      }
      bySub.set(sub._id, (bySub.get(sub._id) ?? 0) + 1)
      byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1)
      picked.push({ job, sub })
    }
    this.#due = kept
    return picked
  }

  #start (job: JobDoc, sub: SubscriptionDoc | undefined): void {
    const live = sub !== undefined && sub.active ? sub : undefined
    const tenant = live === undefined ? null : (job.tenant ?? tenantOf(live))
    if (live !== undefined && tenant !== null) {
      this.#busy.set(live._id, live)
      this.#bySub.set(live._id, (this.#bySub.get(live._id) ?? 0) + 1)
      this.#byTenant.set(tenant, (this.#byTenant.get(tenant) ?? 0) + 1)
    }
    const attempt = (async () => {
      const at = new Date()
      const res =
        live === undefined
          ? undefined
          : await this.#d.sender.send({
            url: live.url,
            secret: live.secret,
            type: job.event.type,
            deliveryId: job.deliveryId,
            body: deliveryBody(job.event, at)
          })
      this.#d.outcomes.push({
        job,
        ...(live !== undefined ? { sub: live } : {}),
        ...(res !== undefined ? { res } : {}),
        at
      })
    })().finally(() => {
      this.#inFlight.delete(attempt)
      if (live !== undefined && tenant !== null) {
        release(this.#bySub, live._id)
        release(this.#byTenant, tenant)
        if (!this.#bySub.has(live._id)) this.#busy.delete(live._id)
      }
      // A slot freed: claim again if due jobs were left waiting for one.
      if (this.#backlog) this.#kick()
    })
    this.#inFlight.add(attempt)
  }
}

function release (counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1
  if (n <= 0) counts.delete(key)
  else counts.set(key, n)
}
