import { UnauthenticatedError, UnlinkedError } from '../errors.js'
import type { AgentStore } from '../store/types.js'
import type { AccessTokens } from './access-tokens.js'
import type { ChatIdentity, Identities } from './identity.js'
import { readClaims } from './jwt-claims.js'
import type { Nonces } from './nonces.js'

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
}

/**
 * Per-user mode: the channel user's stored refresh token mints the access token every tool call
 * carries. No stored link (or a revoked one): 401 UNLINKED with a fresh single-use link URL
 * bound to that channel user.
 */
export function perUserMode (parts: PerUserParts): Identities {
  const unlinked = (channel: string, channelUserId: string): never => {
    const nonce = parts.nonces.issue(channel, channelUserId)
    const base = typeof parts.linkBaseUrl === 'function' ? parts.linkBaseUrl() : parts.linkBaseUrl
    throw new UnlinkedError('link your account to chat: open the link URL and sign in', { linkUrl: `${base.replace(/\/+$/, '')}/link/${nonce}` })
  }
  return {
    mode: 'per-user',
    async forChannelUser (channel: string, channelUserId: string): Promise<ChatIdentity> {
      const key = storeKey(parts.agentKey, channel, channelUserId)
      let token: string
      try {
        // Minted (or refreshed) before any streaming, so a revoked link answers UNLINKED.
        token = await parts.tokens.get(key)
      } catch (err) {
        if (err instanceof UnauthenticatedError) return unlinked(channel, channelUserId)
        throw err
      }
      return {
        channel,
        channelUserId,
        key,
        headers: async () => ({ authorization: `Bearer ${await parts.tokens.get(key)}` }),
        roles: readClaims(token).roles
      }
    }
  }
}
