import type { FastifyRequest } from 'fastify'
import { ForbiddenError, UnauthenticatedError } from '../errors.js'
import type { Identity } from '../identity.js'
import { identityFromClaims } from './claims.js'
import type { JwtService } from './jwt.js'
import type { PasswordChanges } from './password-changes.js'
import type { ApiClientStore } from './stores/api-clients.js'

// The scheme is case-insensitive (RFC 9110); the token must have the three JWS segments.
const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*\.[A-Za-z0-9\-_]*)$/i

function verifyBearer (jwt: JwtService, header: string): { identity: Identity; issuedAt: number } {
  const match = BEARER.exec(header.trim())
  if (match == null) throw new UnauthenticatedError('malformed Authorization header: expected "Bearer <token>"')
  let payload: unknown
  try {
    payload = jwt.verify(match[1])
  } catch (err) {
    const expired = (err as { code?: string }).code === 'FAST_JWT_EXPIRED'
    throw new UnauthenticatedError(expired ? 'token expired' : 'invalid token')
  }
  const identity = identityFromClaims(payload)
  if (identity == null) throw new UnauthenticatedError('invalid token: required claims missing')
  const iat = (payload as { iat?: unknown }).iat
  return { identity, issuedAt: typeof iat === 'number' ? iat : 0 }
}

interface AuthenticateOptions {
  /** An api client (X-Client-Id) is an accepted caller. */
  allowClient?: boolean
}

/** The credentials a caller presents, as HTTP headers (lower-case names) or a WebSocket's `connection_init`. */
export interface CredentialHeaders {
  authorization?: string
  'x-client-id'?: string | string[]
}

/**
 * Resolves the caller from its credentials. A bearer issued before its user's last password
 * reset is refused (see PasswordChanges for how fresh that knowledge is). A present Authorization
 * header always decides (bearer wins, and an invalid bearer is 401 even next to a valid client id,
 * so a broken token never silently downgrades to anonymous access). Api clients are read-only:
 * without `allowClient` a known client gets 403, an unknown one 401.
 */
export function createIdentify (jwt: JwtService, clients: ApiClientStore, passwordChanges: PasswordChanges) {
  return async function identify (headers: CredentialHeaders, opts: AuthenticateOptions = {}): Promise<Identity> {
    const authorization = headers.authorization
    if (authorization !== undefined) {
      const { identity, issuedAt } = verifyBearer(jwt, authorization)
      // Same-second tokens stay valid: `iat` is whole seconds, and a login right after the reset must work.
      if (issuedAt < (await passwordChanges.changedAt(identity.userId as string))) {
        throw new UnauthenticatedError('token issued before a password reset: log in again')
      }
      return identity
    }
    const clientId = headers['x-client-id']
    if (clientId !== undefined) {
      if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 128) {
        throw new UnauthenticatedError('invalid client id')
      }
      const client = await clients.findById(clientId)
      if (client == null) throw new UnauthenticatedError('unknown client id')
      if (opts.allowClient !== true) throw new ForbiddenError('api clients are read-only')
      // An owned client reads as its tenant (then through acl.scope); an operator client has no tenant.
      return {
        kind: 'client',
        userId: typeof client.ownerId === 'string' && client.ownerId !== '' ? client.ownerId : null,
        roles: [client.role],
        clientId: client._id
      }
    }
    throw new UnauthenticatedError('authentication required')
  }
}

/** `identify` of a request's own headers, remembered as `request.identity`. */
export function createAuthenticate (identify: ReturnType<typeof createIdentify>) {
  return async function authenticate (request: FastifyRequest, opts: AuthenticateOptions = {}): Promise<Identity> {
    request.identity = await identify(request.headers, opts)
    return request.identity
  }
}
