import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { identityContext, startPeriodic } from '@svc/core/kit'
import { DeliveriesLog } from './delivery/deliveries-log.js'
import { OutcomeWriter } from './delivery/outcomes.js'
import { DEFAULT_RETRY_SCHEDULE, checkRetrySchedule } from './delivery/retry-schedule.js'
import { DeliveryScheduler } from './delivery/scheduler.js'
import { Sender } from './delivery/sender.js'
import { fanOut, type FanOutEvent } from './fan-out/fan-out.js'
import { LEGACY_DRAIN_MS, LegacyOutbox } from './fan-out/legacy-outbox.js'
import { JobStore } from './jobs/job-store.js'
import { webhookRoutes } from './routes/webhook-routes.js'
import { UrlGuard } from './ssrf/url-guard.js'
import { syncDeclared } from './subscriptions/declared.js'
import { SubscriptionStore, type SubscriptionDoc } from './subscriptions/subscription-store.js'
import { WebhooksService } from './subscriptions/webhooks-service.js'
import type { WebhooksOptions } from './types.js'

export type { WebhooksOptions } from './types.js'
export type { Lookup, RefusalReason } from './ssrf/url-guard.js'
export type { Subscription } from './subscriptions/subscription-store.js'
export type { DeliveryRow } from './delivery/deliveries-log.js'
export { WebhooksService } from './subscriptions/webhooks-service.js'
export { UrlRefusedError } from './ssrf/url-guard.js'
export { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './delivery/retry-schedule.js'
export { SUBSCRIPTIONS_COLLECTION } from './subscriptions/subscription-store.js'
export { JOBS_COLLECTION } from './jobs/job-store.js'
export { OUTBOX_COLLECTION } from './fan-out/legacy-outbox.js'
export { DELIVERIES_COLLECTION } from './delivery/deliveries-log.js'
export { sign } from './delivery/signature.js'

/** The name of webhooks' durable consumer of core's event log (its checkpoint in `svc_event_consumers`). */
export const CONSUMER_NAME = 'webhooks'

function positiveInt (name: string, v: number | undefined, dflt: number): number {
  const n = v ?? dflt
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`@svc/webhooks: ${name} must be a whole number >= 1`)
  return n
}

function share (v: number | undefined): number {
  const n = v ?? 0.25
  if (typeof n !== 'number' || !(n > 0 && n <= 1)) {
    throw new Error('@svc/webhooks: tenantShare must be a number in (0, 1]')
  }
  return n
}

async function webhooks (app: FastifyInstance, opts: WebhooksOptions): Promise<void> {
  const retrySchedule = checkRetrySchedule(opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE)
  const timeoutMs = positiveInt('timeoutMs', opts.timeoutMs, 10_000)
  const concurrency = positiveInt('concurrency', opts.concurrency, 64)
  const perSubscription = positiveInt('perSubscriptionConcurrency', opts.perSubscriptionConcurrency, 8)
  const perTenant = Math.max(1, Math.floor(concurrency * share(opts.tenantShare)))
  const latencyBudgetMs = positiveInt('latencyBudgetMs', opts.latencyBudgetMs, 5000)
  const pollIntervalMs = positiveInt('pollIntervalMs', opts.pollIntervalMs, 1000)
  const leaseMs = positiveInt('leaseMs', opts.leaseMs, 60_000)
  if (leaseMs <= timeoutMs) {
    throw new Error('@svc/webhooks: leaseMs must exceed timeoutMs (a lease must outlive the attempt it covers)')
  }
  const log = app.log.child({ name: '@svc/webhooks' })

  const { db } = app.svc
  const subscriptions = new SubscriptionStore(db)
  const jobs = new JobStore(db)
  const deliveries = new DeliveriesLog(db)
  await Promise.all([subscriptions.ensureIndexes(), jobs.ensureIndexes(), deliveries.ensureIndexes()])
  const services = app.svc.services.all()
  await syncDeclared(
    subscriptions,
    services.map((s) => s.model)
  )

  const guard = new UrlGuard({
    allowPrivate: opts.allowPrivateUrls ?? process.env.NODE_ENV === 'test',
    ...(opts.lookup !== undefined ? { lookup: opts.lookup } : {})
  })
  const sender = new Sender(guard, timeoutMs, concurrency)
  const outcomes = new OutcomeWriter({ jobs, subscriptions, deliveries, retrySchedule, latencyBudgetMs, log })
  const scheduler = new DeliveryScheduler({
    jobs,
    subscriptions,
    sender,
    outcomes,
    leaseMs,
    pollIntervalMs,
    concurrency,
    perSubscription,
    perTenant,
    log
  })
  const project = (ev: FanOutEvent, sub: SubscriptionDoc): Record<string, unknown> | undefined => {
    if (ev.record === undefined || sub.userId === null) return ev.record
    const service = app.svc.services.get(ev.path, ev.version)
    const ctx = identityContext({ kind: 'user', userId: sub.userId, roles: sub.roles }, 'system')
    const readable = service.readableFields(ctx)
    return readable === null
      ? ev.record
      : Object.fromEntries(Object.entries(ev.record).filter(([k]) => readable.has(k)))
  }
  const fan = async (events: readonly FanOutEvent[]): Promise<number> =>
    await fanOut(events, {
      subscriptions,
      jobs,
      project,
      due: () => {
        scheduler.nudge()
      }
    })
  const worker = opts.worker !== false
  // Events come from core's durable log (each exists iff its write committed); the fan-out runs
  // on one worker process at a time from a checkpoint. An API-only replica declares the consumer
  // so events written before any worker starts are kept for it.
  app.svc.eventLog.consume(
    CONSUMER_NAME,
    worker
      ? async (events) => {
        await fan(events)
      }
      : null
  )

  const service = new WebhooksService({
    subscriptions,
    deliveries,
    jobs,
    guard,
    pageSize: app.svc.config.pageSize,
    nudge: () => {
      scheduler.nudge()
    }
  })
  app.svc.webhooks = service
  app.svc.features.webhooks = true
  await app.register(webhookRoutes, { prefix: '/api/v1', webhooks: service })

  if (worker) {
    const legacy = new LegacyOutbox(db, leaseMs)
    let drain: { stop: () => Promise<void> } | null = null
    const drainOnce = async (): Promise<void> => {
      const n = await legacy.drain(fan)
      if (n > 0) log.info({ events: n }, 'fanned out events an older version left in webhook_outbox')
    }
    app.addHook('onReady', async () => {
      scheduler.start()
      await drainOnce()
      drain = startPeriodic('webhook_outbox drain', drainOnce, LEGACY_DRAIN_MS, log)
    })
    app.addHook('onClose', async () => {
      await drain?.stop()
      await scheduler.close()
    })
  }
  app.addHook('onClose', async () => {
    await sender.close()
  })
}

export default fp(webhooks, { name: '@svc/webhooks', fastify: '5.x', dependencies: ['@svc/core'] })
export { webhooks }
