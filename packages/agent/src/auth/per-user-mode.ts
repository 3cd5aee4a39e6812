import { RateLimitedError, UnauthenticatedError, UnlinkedError } from '../errors.js'
import type { AgentStore } from '../store/types.js'
import type { AccessTokens } from './access-tokens.js'
import type { ChannelContext, ChatIdentity, Identities } from './identity.js'
import { readClaims } from './jwt-claims.js'

export interface PerUserAuthOptions {
  mode: 'per-user'
  /** Access-token cache lifetime. Default 900. */
  accessTtlSeconds?: number
  /** Tokens are renewed this much before they lapse. Default 60. */
  refreshSkewSeconds?: number
  /** Link nonce lifetime. Default 900. */
  linkTtlSeconds?: number
}

export const DEFAULT_LINK_TTL_SECONDS = 900

export function storeKey (agentKey: string, channel: string, channelUserId: string): string {
  return `${agentKey}:${channel}:${channelUserId}`
}

export interface PerUserParts {
  agentKey: string
  store: AgentStore
  tokens: AccessTokens
  linkTtlSeconds: number
}

/**
 * Per-user mode: the channel user's stored refresh token mints the access token every tool call
 * carries. No stored link (or a revoked one): 401 UNLINKED with the chat user's single-use link
 * URL (the same one until it is used or expires); RATE_LIMITED when the address asking holds too
 * many live codes.
 */
export function perUserMode (parts: PerUserParts): Identities {
  const unlinked = async (channel: string, channelUserId: string, ctx: ChannelContext): Promise<never> => {
    const key = storeKey(parts.agentKey, channel, channelUserId)
    const nonce = await parts.store.pending.issue(
      { key, channel, channelUserId },
      ctx.issuer,
      parts.linkTtlSeconds * 1000
    )
    if (nonce == null) {
      throw new RateLimitedError(
        'too many sign-in links are waiting for your address: use one you have, or try again later',
        { retryAfterSeconds: parts.linkTtlSeconds }
      )
    }
    throw new UnlinkedError('link your account to chat: open the link URL and sign in', {
      linkUrl: `${ctx.linkBase.replace(/\/+$/, '')}/link/${nonce}`
    })
  }
  return {
    mode: 'per-user',
    async forChannelUser (channel: string, channelUserId: string, ctx: ChannelContext): Promise<ChatIdentity> {
      const key = storeKey(parts.agentKey, channel, channelUserId)
      let token: string
      try {
        // Minted (or refreshed) before any streaming, so a revoked link answers UNLINKED.
        token = await parts.tokens.get(key)
      } catch (err) {
        if (err instanceof UnauthenticatedError) return await unlinked(channel, channelUserId, ctx)
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
