import { UnauthenticatedError } from '../errors.js'
import type { ChatIdentity, Identities } from './identity.js'
import { readClaims } from './jwt-claims.js'

export interface ServiceAuthOptions {
  mode: 'service'
  /** A static access token (JWT) of the agent's user. */
  bearer?: string
  /** An api client id: read-only, anonymous. Used when no bearer is set. */
  clientId?: string
}

/**
 * Service mode: one identity (`SVC_BEARER` or `SVC_CLIENT_ID`) for every turn. The service cannot
 * tell the chat users apart, so the agent keeps their conversations, memories and profiles apart
 * by (channel, channelUserId) wherever it reads or writes them.
 */
export function serviceMode (opts: ServiceAuthOptions): Identities {
  const bearer = opts.bearer ?? ''
  const clientId = opts.clientId ?? ''
  if (bearer === '' && clientId === '') throw new Error('@svc/agent: service mode needs SVC_BEARER or SVC_CLIENT_ID')
  const { exp, roles } = bearer !== '' ? readClaims(bearer) : { exp: null, roles: [] }
  const headers: Record<string, string> =
    bearer !== '' ? { authorization: `Bearer ${bearer}` } : { 'x-client-id': clientId }
  return {
    mode: 'service',
    async forChannelUser (channel: string, channelUserId: string): Promise<ChatIdentity> {
      if (exp != null && exp <= Date.now()) {
        throw new UnauthenticatedError("the agent's SVC_BEARER has expired; mint a new one")
      }
      return { channel, channelUserId, key: 'service', headers: () => headers, roles }
    }
  }
}
