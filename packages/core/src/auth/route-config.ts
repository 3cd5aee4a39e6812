/**
 * Seam for the rate-limit issue: routes tag themselves in `config.svcRateLimit`, and a later
 * limiter reads `routeOptions.config` (as @fastify/rate-limit does) instead of knowing URLs.
 * `/login` and `/register` get the stricter per-IP auth limit (spec: RATE_LIMIT_AUTH_PER_MIN).
 */
export const AUTH_LIMITED = { svcRateLimit: 'auth' } as const

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which rate limit applies to a route (see AUTH_LIMITED). */
    svcRateLimit?: 'auth'
  }
}
