import { RateLimitedError, type Identity } from '@svc/core'

/**
 * Concurrent streams per tenant in this process (SSE streams and GraphQL subscriptions share
 * them): past the limit an open is 429 before any stream starts; a closed stream frees its slot
 * at once. Api clients count per client.
 */
export class StreamSlots {
  readonly #max: number
  readonly #held = new Map<string, number>()

  constructor (max: number) {
    this.#max = max
  }

  static keyOf (identity: Identity): string {
    return identity.kind === 'client' ? `client:${identity.clientId ?? ''}` : `user:${identity.userId ?? ''}`
  }

  take (key: string): void {
    const n = this.#held.get(key) ?? 0
    if (n >= this.#max) {
      throw new RateLimitedError(`at most ${this.#max} concurrent event streams per tenant: close one first`, {
        limit: this.#max
      })
    }
    this.#held.set(key, n + 1)
  }

  give (key: string): void {
    const n = (this.#held.get(key) ?? 0) - 1
    if (n <= 0) this.#held.delete(key)
    else this.#held.set(key, n)
  }

  /** Streams `key` holds now. */
  held (key: string): number {
    return this.#held.get(key) ?? 0
  }
}
