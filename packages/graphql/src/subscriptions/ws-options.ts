import { validate, type DocumentNode, type GraphQLSchema } from 'graphql'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ValidationError, type CredentialHeaders, type RequestContext } from '@svc/core'
import { identityContext, requestContext } from '@svc/core/kit'
import type { costGuard } from '../cost/guard.js'
import { graphqlError } from './event-fields.js'

type CostGuard = ReturnType<typeof costGuard>

interface InitPayload {
  authorization?: unknown
  'x-client-id'?: unknown
  headers?: Record<string, unknown>
}

/** Credentials a client sent in `connection_init` (browsers cannot set headers on a WebSocket). */
function payloadHeaders (payload: unknown): CredentialHeaders | null {
  if (payload === null || typeof payload !== 'object') return null
  const p = payload as InitPayload
  const src = p.headers !== null && typeof p.headers === 'object' ? p.headers : p
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(src)) {
    const k = key.toLowerCase()
    if ((k === 'authorization' || k === 'x-client-id') && typeof value === 'string') out[k] = value
  }
  return Object.keys(out).length > 0 ? out : null
}

/**
 * mercurius' `subscription` options for the `graphql-ws` / `graphql-transport-ws` protocols on the
 * GraphQL path: the caller is the upgrade request's (a bearer or client id header, checked by the
 * route's hook) unless `connection_init` carries its own credentials; invalid ones refuse the
 * connection. Keep-alive pings at the feed's heartbeat.
 */
export function wsOptions (app: FastifyInstance, keepAliveMs: number) {
  return {
    keepAlive: keepAliveMs,
    context: (_socket: unknown, request: FastifyRequest): { svc: RequestContext } => ({
      svc: requestContext(request, 'graphql')
    }),
    onConnect: async (data: { payload?: unknown }): Promise<boolean | { svc: RequestContext }> => {
      const headers = payloadHeaders(data.payload)
      if (headers === null) return true
      try {
        const identity = await app.svc.auth.identify(headers, { allowClient: true })
        return { svc: identityContext(identity, 'graphql', app.log) }
      } catch {
        return false
      }
    }
  }
}

/**
 * Before a subscription runs: the document is validated (graphql-js' `subscribe` does not) and
 * priced like any document — the price of one event's selection, charged once to the request
 * and the tenant; the events themselves come from the shared fan-out.
 */
export function subscriptionGuard (guard: CostGuard) {
  return async (schema: GraphQLSchema, document: DocumentNode, context: { svc?: RequestContext }): Promise<void> => {
    const errors = validate(schema, document)
    if (errors.length > 0) throw graphqlError(new ValidationError(errors[0].message))
    try {
      await guard.preValidation(schema, document, context)
      await guard.preExecution(schema, document, context, {})
    } catch (err) {
      throw graphqlError(err)
    }
  }
}
