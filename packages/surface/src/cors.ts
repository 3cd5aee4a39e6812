import type { FastifyInstance } from 'fastify'
import cors from '@fastify/cors'

/** Request headers a browser client of the API sends (preflights allow exactly these). */
export const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-client-id', 'x-request-id']
/** Response headers a browser client may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'idempotent-replayed',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset'
]

export interface CorsOptions {
  /** Exact origins allowed (`https://app.example.com`); every other origin gets no CORS header at all. */
  origins: string[]
  /** How long a browser may cache a preflight, in seconds; default 600. */
  maxAgeSeconds?: number
}

/**
 * @fastify/cors for an allowlist. An origin outside it gets no `Access-Control-*` header and its
 * preflight is a 404, as if CORS did not exist. Bearer tokens travel in a header, so no credentials.
 */
export async function installCors (app: FastifyInstance, opts: CorsOptions): Promise<void> {
  const allowed = new Set(opts.origins)
  await app.register(cors, {
    origin: (origin, cb) => {
      cb(null, origin !== undefined && allowed.has(origin) ? origin : false)
    },
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: opts.maxAgeSeconds ?? 600
  })
}
