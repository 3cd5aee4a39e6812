import type { Lookup } from './ssrf/url-guard.js'
import type { WebhooksService } from './subscriptions/webhooks-service.js'

/** Options of the @svc/webhooks plugin. */
export interface WebhooksOptions {
  /** Seconds between attempts after a failure; default `[1, 5, 30, 300, 3600]` (the reference server reads `WEBHOOK_RETRY_SCHEDULE`). */
  retrySchedule?: number[]
  /** Accept receivers on private and loopback addresses; default `process.env.NODE_ENV === 'test'` (spec). Schemes are checked regardless. */
  allowPrivateUrls?: boolean
  /** Per-attempt timeout (connect, headers, body); default 10000 (spec: 10 s). */
  timeoutMs?: number
  /** Run the delivery worker in this process; default true. Turn it off on API-only replicas. */
  worker?: boolean
  /** Attempts in flight per process; default 64. */
  concurrency?: number
  /** Attempts in flight per subscription and process; default 8 (1 while its `failureCount` is above 0). */
  perSubscriptionConcurrency?: number
  /** The share of `concurrency` one tenant's deliveries may take (at least one attempt); default 0.25. */
  tenantShare?: number
  /**
   * A 2xx answered slower than this (ms) is delivered but counts against the subscription like a
   * failure (`failureCount`, disabling, one attempt at a time); default 5000.
   */
  latencyBudgetMs?: number
  /** How often an idle worker looks for due jobs (retries); default 1000 ms. New events wake it at once. */
  pollIntervalMs?: number
  /** How long a claimed job is held before another worker may take it; default 60000 (must exceed `timeoutMs`). */
  leaseMs?: number
  /** Host name resolution (`dns.lookup` with `all: true`); tests pass a local resolver. */
  lookup?: Lookup
}

declare module '@svc/core' {
  interface SvcContext {
    /** Present when @svc/webhooks is registered: subscription operations for every surface. */
    webhooks?: WebhooksService
  }
}
