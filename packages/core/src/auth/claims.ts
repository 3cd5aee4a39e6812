import type { Identity } from '../identity.js'

/** Access-token claims per CONTRACT.md (`iat`/`exp` are added by the signer). */
export interface AccessClaims {
  user_id: string
  email: string
  roles: string[]
  account_id?: string
}

function isNonEmptyString (v: unknown): v is string {
  return typeof v === 'string' && v.length > 0
}

/**
 * Turns a verified JWT payload into an Identity, or null when a claim is missing or mistyped.
 * A signature alone is not enough: a token without `user_id`, `roles` or `exp` is refused so a
 * hand-minted token can never produce an identity without a tenant or one that never expires.
 */
export function identityFromClaims (payload: unknown): Identity | null {
  if (payload == null || typeof payload !== 'object') return null
  const p = payload as Record<string, unknown>
  if (!isNonEmptyString(p.user_id) || typeof p.email !== 'string') return null
  if (!Array.isArray(p.roles) || !p.roles.every(isNonEmptyString)) return null
  if (typeof p.exp !== 'number') return null
  if (p.account_id !== undefined && !isNonEmptyString(p.account_id)) return null
  const identity: Identity = { kind: 'user', userId: p.user_id, email: p.email, roles: [...p.roles] }
  if (p.account_id !== undefined) identity.accountId = p.account_id
  return identity
}

/** Copies only the contract claims, so stray properties never end up in a signed token. */
export function pickClaims (claims: AccessClaims): AccessClaims {
  const out: AccessClaims = { user_id: claims.user_id, email: claims.email, roles: [...claims.roles] }
  if (claims.account_id !== undefined) out.account_id = claims.account_id
  return out
}
