import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Identity, RequestContext, Surface } from '../identity.js'

/**
 * The one way a route or surface turns a request into the context the resource service takes:
 * the caller (`request.identity` unless the surface authenticated another way, as a realtime
 * ticket does), the request, its id and its logger.
 */
export function requestContext (
  request: FastifyRequest,
  surface: Surface = 'rest',
  identity: Identity | null = request.identity
): RequestContext {
  return { identity, surface, req: request, requestId: request.id, log: request.log }
}

/**
 * The context of a caller verified without an HTTP request of its own — credentials in a
 * WebSocket's `connection_init`, a stored subscription's owner — with the logger to use, if any.
 */
export function identityContext (identity: Identity | null, surface: Surface, log?: FastifyBaseLogger): RequestContext {
  return log === undefined ? { identity, surface } : { identity, surface, log }
}

/** Trusted internal calls (sweeps, reconcilers, migrations) say so; they never omit the context. */
export const SYSTEM_CONTEXT: Readonly<RequestContext> = Object.freeze({
  identity: null,
  surface: 'system',
  system: true
})
