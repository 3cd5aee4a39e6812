import type { FastifyRequest } from 'fastify'
import type { HeaderSource } from '../tools/mcp-tools.js'

/** Who a chat turn acts as: the channel user (for the conversation) and the service credentials. */
export interface ChatIdentity {
  channel: string
  channelUserId: string
  /** Key of this identity's cached MCP client. */
  key: string
  headers: HeaderSource
  /** A serialized Set-Cookie header to send with the reply (a fresh session). */
  setCookie?: string
}

/** Resolves the identity of a chat request, or throws UNLINKED / UNAUTHENTICATED before any streaming. */
export interface IdentityResolver {
  readonly mode: 'service' | 'per-user'
  resolve: (req: FastifyRequest) => Promise<ChatIdentity>
}

export interface CookieSettings {
  secret: string
  secure: boolean
  serialize: (name: string, value: string, opts: Record<string, unknown>) => string
}
