import type { FastifyInstance } from 'fastify'
import helmet from '@fastify/helmet'

/**
 * @fastify/helmet tuned for a JSON API: a CSP that allows nothing (a JSON answer loads nothing;
 * the docs page and file downloads set their own) plus helmet's other defaults, except that
 * responses may be embedded cross-origin: public file URLs are meant for other sites' pages.
 */
export async function installSecurityHeaders (app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'cross-origin' }
  })
}
