import type { HeaderSource } from '../tools/mcp-tools.js'

/** Who a chat turn acts as: the channel user (for the conversation) and the service credentials. */
export interface ChatIdentity {
  channel: string
  channelUserId: string
  /** Key of this identity's cached MCP client. */
  key: string
  headers: HeaderSource
  /** The roles of the identity's token (unverified; decides which tools are offered, the service decides what they may do). */
  roles: string[]
}

/**
 * The identity of a channel user, whatever the channel (the HTTP cookie, a chat platform's signed
 * event): the service identity in service mode, the linked account in per-user mode. Throws
 * UNLINKED (with a link URL) or UNAUTHENTICATED before any streaming.
 */
export interface Identities {
  readonly mode: 'service' | 'per-user'
  forChannelUser: (channel: string, channelUserId: string, ctx: ChannelContext) => Promise<ChatIdentity>
}

/** Where the chat user is talking from, as the channel knows it. */
export interface ChannelContext {
  /** The agent's public origin as this chat user reaches it: the start of link URLs. */
  linkBase: string
  /** Who asks for a link code (an address, or the chat user on a platform): its live codes are bounded. */
  issuer: string
}

export interface CookieSettings {
  secret: string
  secure: boolean
  serialize: (name: string, value: string, opts: Record<string, unknown>) => string
}
