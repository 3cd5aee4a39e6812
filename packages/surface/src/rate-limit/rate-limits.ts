import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { RateLimitedError, type UsageStore } from '@svc/core'
import { normalizeEmail, tenantKey } from '@svc/core/kit'
import { classifier, type Bucket } from './classify.js'
import { usageRateStore } from './usage-rate-store.js'

export interface RateLimitOptions {
  /** Requests per minute on the data API (`/api/*` and `apiPaths`), per client IP and per tenant; default 600. */
  apiPerMin?: number
  /** Requests per minute per client IP on routes tagged `config.svcRateLimit: 'auth'` (`/login`, `/register`, `/auth/forgot-password`); default 10. */
  authPerMin?: number
  /** Requests per minute per e-mail address on the auth routes, whatever IP they come from; default 5. */
  authPerEmailPerMin?: number
  /** Path prefixes counted in the API budget besides `/api/`; default `['/graphql', '/mcp']`. */
  apiPaths?: string[]
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>
const MINUTE = 60_000
const kBucket = Symbol('@svc/surface.bucket')

/** The e-mail an auth request names, normalized as the user store keys it; null without one. */
function emailOf (request: FastifyRequest): string | null {
  const email = (request.body as { email?: unknown } | null | undefined)?.email
  return typeof email === 'string' && email.length > 0 && email.length <= 320 ? normalizeEmail(email) : null
}

/**
 * Budgets per minute with @fastify/rate-limit, keyed on what the router matched (see
 * classify.ts), so no spelling of a URL escapes them:
 * - the API, per client IP in a root `onRequest` hook (before authentication and body parsing),
 *   then per tenant (user or api client) in `preHandler`, once the route has authenticated:
 *   a tenant's budget follows it across IPs;
 * - the auth routes per client IP, then per e-mail address once the body is parsed (wrong
 *   passwords for one person never lock out everyone behind one address, and nobody can send
 *   one address twenty reset mails);
 * - `request.countRequests(n)`: one HTTP request carrying several (GraphQL mutations, an MCP
 *   batch) adds them to the IP and tenant budgets.
 * Exceeded: 429 `RATE_LIMITED` with `Retry-After` (and `x-ratelimit-*` on plugin answers).
 */
export async function installRateLimits (
  app: FastifyInstance,
  opts: RateLimitOptions & { usage: UsageStore; nameSpace: string }
): Promise<void> {
  const apiPerMin = opts.apiPerMin ?? 600
  await app.register(rateLimit, {
    global: false,
    // Its typings omit the (timeWindow, max) the plugin passes to `incr`.
    store: usageRateStore(opts.usage, opts.nameSpace) as unknown as FastifyRateLimitStoreCtor,
    timeWindow: MINUTE,
    errorResponseBuilder: (_request, ctx) =>
      new RateLimitedError(`rate limit exceeded, retry in ${ctx.after}`, {
        limit: ctx.max,
        retryAfterSeconds: Math.ceil(ctx.ttl / 1000)
      })
  })
  const authPerEmail = opts.authPerEmailPerMin ?? 5
  const handler = (max: number, key: (request: FastifyRequest) => string): Handler =>
    app.rateLimit({ max, keyGenerator: key }) as unknown as Handler
  const perIp: Record<Bucket, Handler> = {
    api: handler(apiPerMin, (request) => `api:ip:${request.ip}`),
    auth: handler(opts.authPerMin ?? 10, (request) => `auth:ip:${request.ip}`)
  }
  const tenantOf = (request: FastifyRequest): string | null =>
    tenantKey({ identity: request.identity ?? null, surface: 'rest' })
  const bucketOf = classifier(opts.apiPaths ?? ['/graphql', '/mcp'])
  // The plugin limits a request once; the second budgets of a request are counted here, in the same store.
  const count = async (key: string, amount: number, max: number): Promise<void> => {
    const { total, resetInMs } = await opts.usage.add(`${opts.nameSpace}${key}`, amount, MINUTE)
    if (total > max) {
      const retryAfterSeconds = Math.max(1, Math.ceil(resetInMs / 1000))
      throw new RateLimitedError(`rate limit exceeded, retry in ${retryAfterSeconds} s`, {
        limit: max,
        retryAfterSeconds
      })
    }
  }

  app.decorateRequest(kBucket, null)
  app.addHook('onRequest', async (request, reply) => {
    const bucket = bucketOf(request)
    ;(request as unknown as Record<symbol, Bucket | null>)[kBucket] = bucket
    if (bucket !== null) await perIp[bucket](request, reply)
  })
  app.addHook('preHandler', async (request) => {
    const bucket = (request as unknown as Record<symbol, Bucket | null>)[kBucket]
    const tenant = bucket === 'api' ? tenantOf(request) : null
    if (tenant !== null) await count(`api:t:${tenant}`, 1, apiPerMin)
    const email = bucket === 'auth' ? emailOf(request) : null
    if (email !== null) await count(`auth:email:${email}`, 1, authPerEmail)
  })
  app.decorateRequest('countRequests', async function (this: FastifyRequest, extra: number): Promise<void> {
    if ((this as unknown as Record<symbol, Bucket | null>)[kBucket] !== 'api' || !(extra > 0)) return
    await count(`api:ip:${this.ip}`, extra, apiPerMin)
    const tenant = tenantOf(this)
    if (tenant !== null) await count(`api:t:${tenant}`, extra, apiPerMin)
  })
}
