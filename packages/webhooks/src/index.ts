import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RequestContext } from '@svc/core'
import { DeliveriesLog } from './delivery/deliveries-log.js'
import { DEFAULT_RETRY_SCHEDULE, checkRetrySchedule } from './delivery/retry-schedule.js'
import { Sender } from './delivery/sender.js'
import { DeliveryWorker } from './delivery/worker.js'
import { eventRow } from './outbox/event-row.js'
import { OUTBOX_COLLECTION, OutboxStore } from './outbox/outbox-store.js'
import { webhookRoutes } from './routes/webhook-routes.js'
import { UrlGuard } from './ssrf/url-guard.js'
import { syncDeclared } from './subscriptions/declared.js'
import { SubscriptionStore } from './subscriptions/subscription-store.js'
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
export { OUTBOX_COLLECTION, JOBS_COLLECTION } from './outbox/outbox-store.js'
export { DELIVERIES_COLLECTION } from './delivery/deliveries-log.js'
export { sign } from './delivery/signature.js'

function positiveInt (name: string, v: number | undefined, dflt: number): number {
  const n = v ?? dflt
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`@svc/webhooks: ${name} must be a whole number >= 1`)
  return n
}

async function webhooks (app: FastifyInstance, opts: WebhooksOptions): Promise<void> {
  const retrySchedule = checkRetrySchedule(opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE)
  const timeoutMs = positiveInt('timeoutMs', opts.timeoutMs, 10_000)
  const concurrency = positiveInt('concurrency', opts.concurrency, 64)
  // A few loops of batches: one slow receiver stalls one batch, and each batch costs a handful of round trips.
  const loops = Math.min(2, concurrency)
  const pollIntervalMs = positiveInt('pollIntervalMs', opts.pollIntervalMs, 1000)
  const leaseMs = positiveInt('leaseMs', opts.leaseMs, 60_000)
  if (leaseMs <= timeoutMs) throw new Error('@svc/webhooks: leaseMs must exceed timeoutMs (a lease must outlive the attempt it covers)')
  const log = app.log.child({ name: '@svc/webhooks' })

  const { db } = app.svc
  const subscriptions = new SubscriptionStore(db)
  const outbox = new OutboxStore(db)
  const deliveries = new DeliveriesLog(db)
  await Promise.all([subscriptions.ensureIndexes(), outbox.ensureIndexes(), deliveries.ensureIndexes()])
  const services = app.svc.services.all()
  await syncDeclared(subscriptions, services.map((s) => s.model))

  const guard = new UrlGuard({ allowPrivate: opts.allowPrivateUrls ?? process.env.NODE_ENV === 'test', ...(opts.lookup !== undefined ? { lookup: opts.lookup } : {}) })
  const sender = new Sender(guard, timeoutMs, concurrency)
  const worker = new DeliveryWorker({
    outbox,
    subscriptions,
    deliveries,
    sender,
    retrySchedule,
    leaseMs,
    pollIntervalMs,
    loops,
    batchSize: Math.ceil(concurrency / loops),
    log,
    project: (ev, sub) => {
      if (ev.record === undefined || sub.userId === null) return ev.record
      const service = app.svc.services.get(ev.path, ev.version)
      const ctx: RequestContext = { identity: { kind: 'user', userId: sub.userId, roles: sub.roles }, surface: 'system' }
      const readable = service.readableFields(ctx)
      return readable === null ? ev.record : Object.fromEntries(Object.entries(ev.record).filter(([k]) => readable.has(k)))
    }
  })
  for (const s of services) {
    // The outbox row is inserted iff the record write commits (core's durable effects); then the
    // in-process write notice only wakes this process's worker (the row is found by polling anyway).
    s.addDurableEffect('webhooks', (result) => [{ collection: OUTBOX_COLLECTION, document: eventRow(result) }])
    s.onWrite(() => { worker.nudge() })
  }
  const service = new WebhooksService({ subscriptions, deliveries, outbox, guard, pageSize: app.svc.config.pageSize, nudge: () => { worker.nudge() } })
  app.svc.webhooks = service
  app.svc.features.webhooks = true
  await app.register(webhookRoutes, { prefix: '/api/v1', webhooks: service })

  if (opts.worker !== false) {
    app.addHook('onReady', async () => { worker.start() })
  }
  app.addHook('onClose', async () => {
    await worker.close()
    await sender.close()
  })
}

export default fp(webhooks, { name: '@svc/webhooks', fastify: '5.x', dependencies: ['@svc/core'] })
export { webhooks }
