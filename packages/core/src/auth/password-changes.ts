import { LRUCache } from 'lru-cache'
import type { UserStore } from './stores/users.js'

/** How processes tell each other of completed password resets (a cluster's IPC, Redis pub/sub). */
export interface PasswordChangeBroadcast {
  /** Resolves once every process has been sent the user id. */
  publish(userId: string): Promise<void>
  /** Called for each user id another process (or this one) published. */
  subscribe(onChange: (userId: string) => void): void
}

/** Default bound on how long another process may still accept a token issued before a reset. */
export const DEFAULT_RESET_STALENESS_MS = 10_000

/**
 * When each user's password last changed, in whole seconds (JWT `iat` has no finer unit), read
 * through a short-lived cache: an authenticated request costs a database read per user at most
 * once per `stalenessMs` per process. The process that completes a reset forgets the user at once;
 * other processes when the broadcast (if any) reaches them, else within `stalenessMs`.
 */
export class PasswordChanges {
  readonly #users: UserStore
  readonly #cache: LRUCache<string, { changedAt: number }>

  readonly #broadcast: PasswordChangeBroadcast | undefined

  constructor (users: UserStore, stalenessMs = DEFAULT_RESET_STALENESS_MS, broadcast?: PasswordChangeBroadcast) {
    this.#users = users
    this.#cache = new LRUCache({ max: 50_000, ttl: Math.max(1, stalenessMs) })
    this.#broadcast = broadcast
    broadcast?.subscribe((userId) => {
      this.forget(userId)
    })
  }

  /** Seconds since the epoch of the last password change, 0 when none is recorded (or no such user). */
  async changedAt (userId: string): Promise<number> {
    const hit = this.#cache.get(userId)
    if (hit !== undefined) return hit.changedAt
    const at = await this.#users.passwordChangedAt(userId)
    const changedAt = at == null ? 0 : Math.floor(at.getTime() / 1000)
    this.#cache.set(userId, { changedAt })
    return changedAt
  }

  forget (userId: string): void {
    this.#cache.delete(userId)
  }

  /** A completed reset: forgotten here, then in every process the broadcast reaches, before it returns. */
  async changed (userId: string): Promise<void> {
    this.forget(userId)
    await this.#broadcast?.publish(userId)
  }
}
