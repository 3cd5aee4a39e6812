import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { UnauthenticatedError, UnlinkedError } from '../errors.js'
import type { AgentStore } from '../store/types.js'
import type { AccessTokens } from './access-tokens.js'
import type { ChatIdentity, CookieSettings, IdentityResolver } from './identity.js'
import type { Nonces } from './nonces.js'
import { SESSION_COOKIE, verifySession } from './session-cookie.js'

export interface PerUserAuthOptions {
  mode: 'per-user'
  /** Refresh tokens per (channel, channelUserId); see `openStore`. */
  store: AgentStore
  /** Public URL of the agent, used in link URLs (a function: read at each use, e.g. once listening). */
  linkBaseUrl: string | (() => string)
  /** Access-token cache lifetime. Default 900. */
  accessTtlSeconds?: number
  /** Tokens are renewed this much before they lapse. Default 60. */
  refreshSkewSeconds?: number
  /** Link nonce lifetime. Default 900. */
  linkTtlSeconds?: number
}

export function storeKey (agentKey: string, channel: string, channelUserId: string): string {
  return `${agentKey}:${channel}:${channelUserId}`
}

export interface PerUserParts {
  agentKey: string
  store: AgentStore
  tokens: AccessTokens
  nonces: Nonces
  linkBaseUrl: string | (() => string)
  cookie: CookieSettings
}

/**
 * Per-user mode: the signed session cookie names the chat user; the user's stored refresh token
 * mints the access token every tool call carries. No cookie, a bad or expired one, or no stored
 * link: 401 UNLINKED with a fresh single-use link URL.
 */
export function perUserMode (parts: PerUserParts): IdentityResolver {
  const unlinked = (channelUserId: string): never => {
    const nonce = parts.nonces.issue('http', channelUserId)
    const base = typeof parts.linkBaseUrl === 'function' ? parts.linkBaseUrl() : parts.linkBaseUrl
    throw new UnlinkedError('link your account to chat: open the link URL and sign in', { linkUrl: `${base.replace(/\/+$/, '')}/link/${nonce}` })
  }
  return {
    mode: 'per-user',
    async resolve (req: FastifyRequest): Promise<ChatIdentity> {
      const session = verifySession(parts.cookie.secret, req.cookies.svc_agent_session)
      if (session == null) return unlinked(randomUUID())
      const key = storeKey(parts.agentKey, 'http', session.cuid)
      try {
        // Minted (or refreshed) before any streaming, so a revoked link answers UNLINKED.
        await parts.tokens.get(key)
      } catch (err) {
        if (err instanceof UnauthenticatedError) return unlinked(session.cuid)
        throw err
      }
      return {
        channel: 'http',
        channelUserId: session.cuid,
        key,
        headers: async () => ({ authorization: `Bearer ${await parts.tokens.get(key)}` })
      }
    }
  }
}

export { SESSION_COOKIE }
