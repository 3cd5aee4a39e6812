import { UnauthenticatedError } from '../errors.js'
import type { ChatIdentity, Identities } from './identity.js'

export interface ServiceAuthOptions {
  mode: 'service'
  /** A static access token (JWT) of the agent's user. */
  bearer?: string
  /** An api client id: read-only, anonymous. Used when no bearer is set. */
  clientId?: string
}

/** `exp` of a JWT, read without verifying (the service verifies; this only spots an expired one early). */
function expiresAt (jwt: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown }
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null
  } catch {
    return null
  }
}

/**
 * Service mode: one identity (`SVC_BEARER` or `SVC_CLIENT_ID`) for every turn; channel users are
 * told apart only to keep their conversations apart.
 */
export function serviceMode (opts: ServiceAuthOptions): Identities {
  const bearer = opts.bearer ?? ''
  const clientId = opts.clientId ?? ''
  if (bearer === '' && clientId === '') throw new Error('@svc/agent: service mode needs SVC_BEARER or SVC_CLIENT_ID')
  const exp = bearer !== '' ? expiresAt(bearer) : null
  const headers: Record<string, string> = bearer !== '' ? { authorization: `Bearer ${bearer}` } : { 'x-client-id': clientId }
  return {
    mode: 'service',
    async forChannelUser (channel: string, channelUserId: string): Promise<ChatIdentity> {
      if (exp != null && exp <= Date.now()) throw new UnauthenticatedError('the agent\'s SVC_BEARER has expired; mint a new one')
      return { channel, channelUserId, key: 'service', headers: () => headers }
    }
  }
}
