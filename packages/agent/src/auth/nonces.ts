import { randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'

export interface PendingLink {
  channel: string
  channelUserId: string
  /** Failed sign-ins so far; the nonce burns at MAX_LINK_ATTEMPTS. */
  attempts: number
}

export const DEFAULT_LINK_TTL_SECONDS = 900
export const MAX_LINK_ATTEMPTS = 5
const MAX_PENDING = 10_000

/** Link nonces: random, single use, expiring after their lifetime (kept in process). */
export class Nonces {
  readonly #pending: LRUCache<string, PendingLink>

  constructor (ttlSeconds: number = DEFAULT_LINK_TTL_SECONDS) {
    this.#pending = new LRUCache({ max: MAX_PENDING, ttl: ttlSeconds * 1000, ttlAutopurge: false })
  }

  issue (channel: string, channelUserId: string): string {
    const nonce = randomBytes(24).toString('base64url')
    this.#pending.set(nonce, { channel, channelUserId, attempts: 0 }, { noUpdateTTL: true })
    return nonce
  }

  /** The pending link of an unexpired, unconsumed nonce, else null. */
  peek (nonce: string): PendingLink | null {
    return this.#pending.get(nonce, { updateAgeOnGet: false }) ?? null
  }

  consume (nonce: string): void {
    this.#pending.delete(nonce)
  }

  /** Records a failed sign-in; true when that burned the nonce. */
  fail (nonce: string): boolean {
    const link = this.peek(nonce)
    if (link == null) return true
    link.attempts++
    if (link.attempts < MAX_LINK_ATTEMPTS) return false
    this.consume(nonce)
    return true
  }
}
