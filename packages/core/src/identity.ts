import type { FastifyBaseLogger, FastifyRequest } from 'fastify'

/**
 * Who is calling. Set on `request.identity` by the auth layer (bearer JWT or X-Client-Id),
 * passed to the resource service inside a RequestContext by every surface.
 */
export interface Identity {
  /** `user` — a verified bearer JWT; `client` — an anonymous apiClient (read-only). */
  kind: 'user' | 'client'
  /**
   * The tenant: JWT `user_id`; for an api client, its owner (`svc clients create --owner`), whose
   * records it reads through `acl.scope[role]`. Null for an operator client (no owner): the scope
   * alone decides, across tenants.
   */
  userId: string | null
  email?: string
  roles: string[]
  /** JWT `account_id` (organisation), stamped on records as `accountId` when present. */
  accountId?: string
  /** apiClient id for `kind: 'client'`. */
  clientId?: string
}

/**
 * The entry point a call came in through (`ctx.surface`): REST, GraphQL, MCP, the agent, or a
 * trusted internal call. Not the `@svc/surface` plugin, which is the HTTP layer in front of all of them.
 */
export type Surface = 'rest' | 'graphql' | 'mcp' | 'agent' | 'system'

/**
 * The context every resource-service call receives. Trusted internal calls say so with
 * `system: true`; they never pass an empty context.
 */
export interface RequestContext {
  identity: Identity | null
  surface: Surface
  /** The HTTP request when there is one (undefined under GraphQL hooks per the spec). */
  req?: FastifyRequest
  /** The request's logger (`request.log`); the service logs there, else under its own name. */
  log?: FastifyBaseLogger
  system?: boolean
  /**
   * The surface priced this request as a whole and charged it (a GraphQL document, see the cost
   * model): the service does not charge its operations one by one again.
   */
  priced?: boolean
  /** Aborted when the caller gave up (a cancelled MCP call, a shutdown): the service's reads stop. */
  signal?: AbortSignal
  /** Request id, for audit rows and logs. */
  requestId?: string
}
