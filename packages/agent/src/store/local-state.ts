import { randomBytes } from 'node:crypto'
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import type { Limiter, PendingLink, PendingLinks } from './types.js'

export const MAX_PENDING_LINKS = 10_000
/** Live link codes one issuer (an address) may hold at once. */
export const MAX_PENDING_PER_ISSUER = 50
export const MAX_LINK_ATTEMPTS = 5

export function newNonce (): string {
  return randomBytes(24).toString('base64url')
}

interface Entry {
  link: PendingLink
  issuer: string
  expiresAt: number
}

/**
 * Link codes of a single-process store. Codes expire in issue order (one lifetime for all), so
 * the oldest are swept from the front; a full store refuses new codes instead of evicting.
 */
export class LocalPendingLinks implements PendingLinks {
  readonly #codes = new Map<string, Entry>()
  readonly #byUser = new Map<string, string>()
  readonly #perIssuer = new Map<string, number>()

  #sweep (now: number): void {
    for (const [nonce, entry] of this.#codes) {
      if (entry.expiresAt > now) break
      this.#drop(nonce, entry)
    }
  }

  #drop (nonce: string, entry: Entry): void {
    this.#codes.delete(nonce)
    if (this.#byUser.get(entry.link.key) === nonce) this.#byUser.delete(entry.link.key)
    const left = (this.#perIssuer.get(entry.issuer) ?? 1) - 1
    if (left > 0) this.#perIssuer.set(entry.issuer, left)
    else this.#perIssuer.delete(entry.issuer)
  }

  async issue (link: Omit<PendingLink, 'attempts'>, issuer: string, ttlMs: number): Promise<string | null> {
    const now = Date.now()
    this.#sweep(now)
    const live = this.#byUser.get(link.key)
    if (live != null && this.#codes.has(live)) return live
    if (this.#codes.size >= MAX_PENDING_LINKS || (this.#perIssuer.get(issuer) ?? 0) >= MAX_PENDING_PER_ISSUER) {
      return null
    }
    const nonce = newNonce()
    this.#codes.set(nonce, { link: { ...link, attempts: 0 }, issuer, expiresAt: now + ttlMs })
    this.#byUser.set(link.key, nonce)
    this.#perIssuer.set(issuer, (this.#perIssuer.get(issuer) ?? 0) + 1)
    return nonce
  }

  async peek (nonce: string): Promise<PendingLink | null> {
    const entry = this.#codes.get(nonce)
    if (entry == null) return null
    if (entry.expiresAt <= Date.now()) {
      this.#drop(nonce, entry)
      return null
    }
    return { ...entry.link }
  }

  async fail (nonce: string): Promise<boolean> {
    const entry = this.#codes.get(nonce)
    if (entry == null) return true
    entry.link.attempts++
    if (entry.link.attempts < MAX_LINK_ATTEMPTS) return false
    this.#drop(nonce, entry)
    return true
  }

  async consume (nonce: string): Promise<boolean> {
    const entry = this.#codes.get(nonce)
    if (entry == null) return false
    this.#drop(nonce, entry)
    return true
  }
}

/** In-process counters (rate-limiter-flexible's memory limiter), one per name, as Redis keeps them. */
export class LocalLimiters {
  readonly #byName = new Map<string, Limiter>()

  get (name: string, points: number, durationSeconds: number): Limiter {
    const id = `${name}:${points}:${durationSeconds}`
    let limiter = this.#byName.get(id)
    if (limiter == null) {
      const counters = new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds })
      limiter = { hit: async (key) => await consume(counters, key) }
      this.#byName.set(id, limiter)
    }
    return limiter
  }
}

/** null when the hit is allowed, else the wait in ms. */
export async function consume (
  limiter: { consume: (key: string) => Promise<RateLimiterRes> },
  key: string
): Promise<number | null> {
  try {
    await limiter.consume(key)
    return null
  } catch (res) {
    if (res instanceof RateLimiterRes) return Math.max(res.msBeforeNext, 1)
    throw res
  }
}

/** Serialises work per key inside one process (the single-process stores' `exclusive`). */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve()
    const mine = before.catch(() => {}).then(fn)
    const tail = mine.catch(() => {})
    this.#tails.set(key, tail)
    try {
      return await mine
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }
}
