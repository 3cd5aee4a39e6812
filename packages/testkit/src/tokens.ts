import { createHmac, randomBytes } from 'node:crypto'

export interface SignTokenOptions {
  /** `HS256` (default), `none` (unsigned: must be refused), or `HS512` (a wrong algorithm: must be refused). */
  alg?: 'HS256' | 'HS512' | 'none'
  /** Seconds from now; negative makes an already expired token. Default 900. Ignored when `claims.exp` is set. */
  expiresIn?: number
}

function b64url (input: string | Buffer): string {
  return Buffer.from(input).toString('base64url')
}

/**
 * Hand-made JWTs for auth tests (valid, expired, `alg: none`, wrongly signed), built with
 * node:crypto so the tests never share code with the verifier they check.
 */
export function signToken (claims: Record<string, unknown>, secret: string, opts: SignTokenOptions = {}): string {
  const alg = opts.alg ?? 'HS256'
  const now = Math.floor(Date.now() / 1000)
  const payload = { iat: now, exp: now + (opts.expiresIn ?? 900), ...claims }
  const head = `${b64url(JSON.stringify({ alg, typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}`
  if (alg === 'none') return `${head}.`
  const hash = alg === 'HS512' ? 'sha512' : 'sha256'
  return `${head}.${createHmac(hash, secret).update(head).digest('base64url')}`
}

/** Standard claims for a made-up user; override any of them. */
export function userClaims (overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { user_id: '65f000000000000000000001', email: 'someone@example.test', roles: ['user'], ...overrides }
}

export interface TokenUser {
  userId: string
  headers: { authorization: string }
}

/**
 * A made-up tenant with a bearer signed by `secret` (no /register round trip): a fresh 24-hex
 * `user_id` unless the claims name one, a unique e-mail, roles `['user']` unless overridden.
 */
export function tokenUser (secret: string, claims: Record<string, unknown> = {}): TokenUser {
  const userId = typeof claims.user_id === 'string' ? claims.user_id : randomBytes(12).toString('hex')
  const token = signToken(
    { user_id: userId, email: `u-${randomBytes(3).toString('hex')}@example.test`, roles: ['user'], ...claims },
    secret
  )
  return { userId, headers: { authorization: `Bearer ${token}` } }
}
