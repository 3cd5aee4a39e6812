import type { FastifyRequest } from 'fastify'
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

/** Trusted internal calls (sweeps, reconcilers, migrations) say so; they never omit the context. */
export const SYSTEM_CONTEXT: Readonly<RequestContext> = Object.freeze({
  identity: null,
  surface: 'system',
  system: true
})
