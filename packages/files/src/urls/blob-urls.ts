import { createHmac, timingSafeEqual } from 'node:crypto'

/** Where the service serves blobs: `GET <base>/files/<key>`. */
export const BLOB_ROUTE_PREFIX = '/files'

export type Verdict = 'ok' | 'expired' | 'invalid'

/**
 * Download URLs. Public files have a stable URL; private ones carry `exp` (unix seconds) and an
 * HMAC-SHA256 over the key and `exp`, so neither can be changed (another key, a later expiry)
 * without the signing secret.
 */
export class BlobUrls {
  readonly #base: string
  readonly #secret: Buffer

  constructor (base: string, secret: string | Buffer) {
    this.#base = base.replace(/\/+$/, '')
    this.#secret = Buffer.isBuffer(secret) ? secret : Buffer.from(secret)
  }

  publicUrl (key: string): string {
    return `${this.#base}${BLOB_ROUTE_PREFIX}/${key}`
  }

  signedUrl (key: string, ttlSeconds: number, now: Date): string {
    const exp = Math.floor(now.getTime() / 1000) + ttlSeconds
    return `${this.publicUrl(key)}?exp=${exp}&sig=${this.#sign(key, exp)}`
  }

  verify (key: string, exp: unknown, sig: unknown, now: Date): Verdict {
    if (typeof exp !== 'string' || !/^\d{1,12}$/.test(exp) || typeof sig !== 'string') return 'invalid'
    const expected = Buffer.from(this.#sign(key, Number(exp)))
    const given = Buffer.from(sig)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
    return Number(exp) * 1000 <= now.getTime() ? 'expired' : 'ok'
  }

  #sign (key: string, exp: number): string {
    return createHmac('sha256', this.#secret).update(`GET\n${key}\n${exp}`).digest('base64url')
  }
}
