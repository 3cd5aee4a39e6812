import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { RateLimitedError } from '@svc/core'
import type { Redis } from 'ioredis'
import { failOpenStore, localStore } from './stores.js'

export interface RateLimitOptions {
  /** Requests per minute per client IP on the data API (`/api/*` and `apiPaths`); default 600. */
  apiPerMin?: number
  /** Requests per minute per client IP on routes tagged `config.svcRateLimit: 'auth'` (`/login`, `/register`); default 10. */
  authPerMin?: number
  /** Path prefixes counted in the API budget besides `/api/`; default `['/graphql', '/mcp']`. */
  apiPaths?: string[]
}

type Bucket = 'api' | 'auth'
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

function classifier (apiPaths: string[]): (request: FastifyRequest) => Bucket | null {
  return (request) => {
    // Preflights are answered by the CORS layer without touching data; browsers cache them.
    if (request.method === 'OPTIONS') return null
    if (request.routeOptions.config?.svcRateLimit === 'auth') return 'auth'
    // The raw path, so unknown /api/* URLs (404s) count against the budget too.
    const path = request.url.split('?', 1)[0]
    return path.startsWith('/api/') || apiPaths.some((p) => path === p || path.startsWith(`${p}/`)) ? 'api' : null
  }
}

/**
 * Per-IP budgets per minute (spec, Limits) with @fastify/rate-limit, applied in one root
 * `onRequest` hook so it runs before authentication and body parsing, and covers every surface
 * registered afterwards by path (REST, GraphQL, MCP) without per-route wiring. Exceeded: 429
 * `RATE_LIMITED` with `Retry-After` and `x-ratelimit-*`. With `redis` the counters are shared by
 * every replica, failing open to per-process counting while Redis does not answer.
 */
export async function installRateLimits (app: FastifyInstance, opts: RateLimitOptions & { redis: Redis | null, nameSpace: string, onStoreError: (err: unknown) => void }): Promise<void> {
  const store = opts.redis === null ? localStore() : failOpenStore({ redis: opts.redis, nameSpace: opts.nameSpace, onError: opts.onStoreError })
  await app.register(rateLimit, {
    global: false,
    // Its typings omit the (timeWindow, max) the plugin passes to `incr`, which our stores forward.
    store: store as unknown as FastifyRateLimitStoreCtor,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, ctx) => new RateLimitedError(`rate limit exceeded, retry in ${ctx.after}`, { limit: ctx.max, retryAfterSeconds: Math.ceil(ctx.ttl / 1000) })
  })
  const handlers: Record<Bucket, Handler> = {
    api: app.rateLimit({ max: opts.apiPerMin ?? 600, keyGenerator: (request) => `api:${request.ip}` }) as unknown as Handler,
    auth: app.rateLimit({ max: opts.authPerMin ?? 10, keyGenerator: (request) => `auth:${request.ip}` }) as unknown as Handler
  }
  const bucketOf = classifier(opts.apiPaths ?? ['/graphql', '/mcp'])
  app.addHook('onRequest', async (request, reply) => {
    const bucket = bucketOf(request)
    if (bucket !== null) await handlers[bucket](request, reply)
  })
}
