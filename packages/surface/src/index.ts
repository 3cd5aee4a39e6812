import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { memoryUsageStore } from '@svc/core/kit'
import type { Counter, Registry } from 'prom-client'
import { redisAggregationCache } from './aggregation-cache.js'
import { redisUsageStore } from './usage-store.js'
import { installCors } from './cors.js'
import { installDocs } from './docs/docs.js'
import { installLoadShedding } from './load-shedding.js'
import { installSecurityHeaders } from './security-headers.js'
import { metricsRoute } from './metrics/metrics-route.js'
import { installRateLimits } from './rate-limit/rate-limits.js'
import { connectRedis } from './redis.js'
import { ThrottledReporter } from './throttled-log.js'
import type { MetricsOptions, SurfaceContext, SurfaceOptions } from './types.js'

export type * from './types.js'
export { UNMATCHED_ROUTE, DURATION_BUCKETS } from './metrics/labels.js'
export { connectRedis } from './redis.js'
export { redisAggregationCache } from './aggregation-cache.js'
export { redisUsageStore } from './usage-store.js'
export { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './cors.js'
export { toSwagger2Schema } from './docs/swagger2-schema.js'

async function svcSurface (app: FastifyInstance, opts: SurfaceOptions): Promise<void> {
  const log = app.log.child({ name: '@svc/surface' })
  // prom-client is loaded only with metrics on: without them nothing would read what it records.
  let metrics: { options: MetricsOptions; register: Registry; redisErrors: Counter } | null = null
  if (opts.metrics !== undefined && opts.metrics !== false) {
    const { Counter, Registry } = await import('prom-client')
    const register = new Registry()
    const redisErrors = new Counter({
      name: 'redis_errors_total',
      help: 'Redis calls that failed; the service answered without Redis (fail open)',
      labelNames: ['use'],
      registers: [register]
    })
    metrics = { options: opts.metrics, register, redisErrors }
  }
  let redis: Redis | null = null
  if (typeof opts.redis === 'string') {
    redis = await connectRedis(opts.redis)
    // ioredis emits connection errors as events; they are reported through redisFailed below.
    redis.on('error', (err) => surface.redisFailed('connection', err))
    app.addHook('onClose', async () => {
      redis?.disconnect()
    })
  } else if (opts.redis !== undefined) {
    redis = opts.redis
  }

  const reporter = new ThrottledReporter(opts.errorLogIntervalMs ?? 60_000, (err, suppressed) => {
    log.warn({ err, suppressed }, 'redis unavailable: serving without it (fail open)')
  })
  const prefix = opts.redisKeyPrefix ?? 'svc:'
  const surface: SurfaceContext = {
    metrics: metrics?.register ?? null,
    redis,
    aggregationCache: null,
    usageStore: opts.usageStore ?? memoryUsageStore(),
    redisFailed: (use, err) => {
      metrics?.redisErrors.inc({ use })
      reporter.failed(err)
    }
  }
  if (redis !== null) {
    surface.aggregationCache = redisAggregationCache(redis, {
      prefix: `${prefix}agg:`,
      onError: (err) => surface.redisFailed('aggregation_cache', err)
    })
    surface.usageStore = redisUsageStore(redis, { prefix, onError: (err) => surface.redisFailed('rate_limit', err) })
  }
  app.decorate('svcSurface', surface)

  // First: the document collects the routes registered after it (this plugin's included).
  if (opts.docs !== false) await installDocs(app, opts.docs ?? {})
  // Order matters: each hook may end the request, and the ones before it still apply.
  if (opts.securityHeaders !== false) await installSecurityHeaders(app)
  if (opts.cors !== undefined && opts.cors !== false && opts.cors.origins.length > 0) await installCors(app, opts.cors)
  if (opts.loadShedding !== false) await installLoadShedding(app, opts.loadShedding ?? {})
  if (metrics !== null) {
    const { installHttpMetrics } = await import('./metrics/http-metrics.js')
    const { options, register } = metrics
    installHttpMetrics(app, register)
    metricsRoute(app, register, {
      path: options.path ?? '/_metrics',
      ...(options.token !== undefined ? { token: options.token } : {})
    })
  }
  if (opts.rateLimit !== false) {
    await installRateLimits(app, { ...opts.rateLimit, usage: surface.usageStore, nameSpace: 'rl:' })
  }
}

/**
 * The service-wide HTTP surface: security headers, CORS, load shedding, metrics, API docs, rate limits. Infrastructure (`fp`): its hooks sit on the
 * host's root, so register it before @svc/core and every surface it should cover.
 */
export default fp(svcSurface, { name: '@svc/surface', fastify: '5.x' })
export { svcSurface }
