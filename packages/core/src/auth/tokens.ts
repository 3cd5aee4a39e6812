import { createHash, randomBytes } from 'node:crypto'

/** 32 random bytes, URL-safe: an opaque bearer secret (refresh and reset tokens). */
export function generateOpaqueToken (): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Tokens are stored only as SHA-256 digests: a database leak yields nothing usable, and a
 * high-entropy random token needs no slow hash.
 */
export function hashToken (token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
