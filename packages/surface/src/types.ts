import type { AggregationCache, UsageStore } from '@svc/core'
import type { Redis } from 'ioredis'
import type { Registry } from 'prom-client'
import type { CorsOptions } from './cors.js'
import type { DocsOptions } from './docs/docs.js'
import type { LoadSheddingOptions } from './load-shedding.js'
import type { RateLimitOptions } from './rate-limit/rate-limits.js'

export type { CorsOptions, DocsOptions, LoadSheddingOptions, RateLimitOptions }

export interface MetricsOptions {
  /** Where the exposition is served; default `/_metrics`. */
  path?: string
  /** When set, `/_metrics` needs `Authorization: Bearer <token>` (compared in constant time). */
  token?: string
}

/** Options of @svc/surface. Register it before @svc/core and the surfaces it should cover. */
export interface SurfaceOptions {
  /** Prometheus metrics; `false` (default): no `/_metrics` route, no per-request recording. */
  metrics?: MetricsOptions | false
  /** Per-IP rate limits; `false` turns them off (the reference server does so when `NODE_ENV=test`). Default on. */
  rateLimit?: RateLimitOptions | false
  /** Cross-origin access for an allowlist of origins; `false` (default): no cross-origin request is accepted. */
  cors?: CorsOptions | false
  /** Security headers (helmet's, computed once) on every answer; default `true`. */
  securityHeaders?: boolean
  /** 503 instead of queueing when the process is saturated (@fastify/under-pressure); default on, `false` turns it off. */
  loadShedding?: LoadSheddingOptions | false
  /** `GET /api-docs` (Swagger UI) and `GET /api-docs/swagger.json` (Swagger 2.0) from the route schemas; default on, `false` turns them off. */
  docs?: DocsOptions | false
  /** A Redis URL (`redis://…`) or an ioredis client shared by the replicas; unset: everything is per process. */
  redis?: string | Redis
  /**
   * Without `redis`: the counters' store when they must be shared some other way (the reference
   * server's cluster workers count in their primary). Default: this process.
   */
  usageStore?: UsageStore
  /** Prefix of every Redis key the surface writes (`<prefix>rl:…`, `<prefix>agg:…`); default `svc:` (replicas of one service must agree). */
  redisKeyPrefix?: string
  /** Errors of a recurring kind (Redis unreachable) are logged at most once per this many ms; default 60000. */
  errorLogIntervalMs?: number
}

/** `app.svcSurface`: what other plugins may reuse. */
export interface SurfaceContext {
  /** The metrics registry (`/_metrics` serves it); plugins may register their own metrics on it. Null with metrics off. */
  metrics: Registry | null
  /** The shared Redis client, or null without `redis`. Closed with the app when the surface created it. */
  redis: Redis | null
  /**
   * With `redis`: a store for declared aggregations' cached answers, shared by the replicas; pass
   * it to @svc/core as `aggregationCache`. Null without `redis` (core then caches per process).
   */
  aggregationCache: AggregationCache | null
  /**
   * The counters of every budget over time: the rate limits, and tenants' cost budgets once passed
   * to @svc/core as `costStore`. With `redis` they are shared by the replicas (failing open to
   * per-process counting), without it they live in this process.
   */
  usageStore: UsageStore
  /** Counts (and throttles the log of) a failed Redis call; `use` names the caller, e.g. `rate_limit`. */
  redisFailed: (use: string, err: unknown) => void
}

declare module 'fastify' {
  interface FastifyInstance {
    svcSurface: SurfaceContext
  }
}
