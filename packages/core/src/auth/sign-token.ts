import { createHmac } from 'node:crypto'
import { pickClaims, type AccessClaims } from './claims.js'

function b64url (input: string | Buffer): string {
  return Buffer.from(input).toString('base64url')
}

/**
 * Signs an HS256 access token without a Fastify instance, for offline minting
 * (`svc token mint`, test helpers). The running service signs with @fastify/jwt; both produce
 * the same header and claims, and the service verifies either (covered by tests).
 */
export function signAccessToken (secret: string, claims: AccessClaims, ttlSeconds: number, now = Date.now()): string {
  if (typeof secret !== 'string' || secret.length === 0) throw new Error('signAccessToken: secret is required')
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new Error('signAccessToken: ttlSeconds must be a positive integer')
  }
  const iat = Math.floor(now / 1000)
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const payload = b64url(JSON.stringify({ ...pickClaims(claims), iat, exp: iat + ttlSeconds }))
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')
  return `${header}.${payload}.${signature}`
}
