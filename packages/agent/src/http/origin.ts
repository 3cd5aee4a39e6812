import { isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'
import { ForbiddenError } from '../errors.js'

const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/
const LOOPBACK_NAMES = new Set(['localhost'])

/** `<protocol>://<host>` the request was sent to, when its Host is a plain host[:port]. */
export function requestOrigin (req: FastifyRequest): string | null {
  const host = req.host
  return typeof host === 'string' && HOST.test(host) ? `${req.protocol}://${host.toLowerCase()}` : null
}

/**
 * The origin of the agent's own pages: the configured public URL's, or, unset, the origin the
 * request came to, if its host is `localhost` or an address (names that no other site can
 * point at this agent — a DNS name could be rebound by any page).
 */
export function pageOrigin (req: FastifyRequest, publicUrl: string | undefined): string | null {
  if (publicUrl != null) return new URL(publicUrl).origin
  const own = requestOrigin(req)
  if (own == null) return null
  const hostname = new URL(own).hostname
  return LOOPBACK_NAMES.has(hostname) || isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 ? own : null
}

function originOf (value: string): string | null {
  try {
    return new URL(value).origin
  } catch {
    return null
  }
}

/**
 * A browser's request must come from the agent's own page: its `Origin` (or, without one, its
 * `Referer`) must be that page's origin. A request with neither is not a browser's cross-site
 * request (a form or script on another site always sends one of them) and passes.
 */
export function checkOrigin (req: FastifyRequest, publicUrl: string | undefined): void {
  // Fetch metadata: what a modern browser says even when the page suppressed its Referer.
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    throw new ForbiddenError('requests to the agent must come from its own page, not from another site')
  }
  const origin = req.headers.origin
  const referer = req.headers.referer
  const claimed =
    typeof origin === 'string' ? origin : typeof referer === 'string' ? (originOf(referer) ?? 'null') : null
  if (claimed == null) return
  const allowed = pageOrigin(req, publicUrl)
  if (allowed != null && claimed === allowed) return
  const where =
    allowed ??
    (publicUrl == null
      ? 'a page on localhost or an address (set AGENT_LINK_BASE_URL to serve it under a name)'
      : 'AGENT_LINK_BASE_URL')
  throw new ForbiddenError(`requests to the agent must come from its own page (${where}), not from ${claimed}`)
}
