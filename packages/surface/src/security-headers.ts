import type { FastifyInstance } from 'fastify'
import helmet from '@fastify/helmet'

const JSON_CSP = "default-src 'none';frame-ancestors 'none'"

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
  // The JSON policy would blank an HTML page another plugin serves (GraphiQL): pages bring their
  // own policy (the docs page sets it in a later hook), so the JSON one is taken off them here.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (
      String(reply.getHeader('content-type') ?? '').startsWith('text/html') &&
      reply.getHeader('content-security-policy') === JSON_CSP
    ) {
      reply.removeHeader('content-security-policy')
    }
    return payload
  })
}
