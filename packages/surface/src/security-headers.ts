import type { FastifyInstance } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

const JSON_CSP = "default-src 'none';frame-ancestors 'none'"

/**
 * helmet tuned for a JSON API: a CSP that allows nothing (a JSON answer loads nothing; the docs
 * page and file downloads set their own) plus helmet's other defaults, except that responses may
 * be embedded cross-origin: public file URLs are meant for other sites' pages.
 */
const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' }
}

/**
 * The headers helmet sets with `options`: computed once, since none depends on the request
 * (@fastify/helmet builds the middleware anew for every request, two hooks and a closure each).
 */
export function helmetHeaders (options: HelmetOptions): Array<[string, string]> {
  const headers: Array<[string, string]> = []
  const res = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader: () => {}
  }
  // helmet throws on a bad option (since 8.1 it no longer hands errors to `next`).
  helmet(options)({} as never, res as never, () => {})
  return headers
}

export async function installSecurityHeaders (app: FastifyInstance): Promise<void> {
  const headers = helmetHeaders(OPTIONS)
  // On the raw response, as helmet does: answers sent through `reply.raw` (SSE, hijacked) carry them too.
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value)
    done()
  })
  // The JSON policy would blank an HTML page another plugin serves (GraphiQL): pages bring their
  // own policy (the docs page sets it in a later hook), so the JSON one is taken off them here.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (
      String(reply.getHeader('content-type') ?? '').startsWith('text/html') &&
      reply.getHeader('content-security-policy') === JSON_CSP
    ) {
      reply.removeHeader('content-security-policy')
    }
    done(null, payload)
  })
}
