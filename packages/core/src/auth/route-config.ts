/**
 * Routes tag themselves in `config.svcRateLimit`, and a limiter (`@svc/surface`) reads
 * `routeOptions.config` (as @fastify/rate-limit does) instead of knowing URLs. `/login`,
 * `/register` and `/auth/forgot-password` get the stricter auth limits: per IP (spec:
 * RATE_LIMIT_AUTH_PER_MIN) and per e-mail address named in the body.
 */
export const AUTH_LIMITED = { svcRateLimit: 'auth' } as const

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which rate limit applies to a route (see AUTH_LIMITED). */
    svcRateLimit?: 'auth'
  }
}
