import { UnauthenticatedError } from '../errors.js'
import type { AgentStore } from '../store/types.js'
import type { SvcAuth } from './svc-auth.js'
import { readClaims } from './jwt-claims.js'

export const DEFAULT_ACCESS_TTL_SECONDS = 900
export const DEFAULT_REFRESH_SKEW_SECONDS = 60

interface Cached {
  token: string
  renewAt: number
}

/**
 * Per-user access tokens: minted from the stored refresh token on demand, cached for the access
 * TTL (or the token's own expiry, if sooner) and renewed `skew` early. One refresh per key at a
 * time, across every process sharing the store: the service rotates refresh tokens and revokes
 * the family on reuse, so two concurrent refreshes with the same token would unlink the user.
 * The newest access token is kept in the store row, so the other processes use it.
 */
export class AccessTokens {
  readonly #cache = new Map<string, Cached>()
  readonly #inflight = new Map<string, Promise<string>>()

  constructor (
    private readonly store: AgentStore,
    private readonly auth: SvcAuth,
    private readonly ttlSeconds: number = DEFAULT_ACCESS_TTL_SECONDS,
    private readonly skewSeconds: number = DEFAULT_REFRESH_SKEW_SECONDS
  ) {}

  /** When a token obtained now should be renewed. */
  renewAt (token: string, now = Date.now()): number {
    return (
      Math.min(now + this.ttlSeconds * 1000, readClaims(token).exp ?? Number.POSITIVE_INFINITY) -
      this.skewSeconds * 1000
    )
  }

  /** Caches a token just obtained (a fresh login). */
  seed (key: string, token: string, renewAt = this.renewAt(token)): void {
    this.#cache.set(key, { token, renewAt })
  }

  /** A valid access token for the key; UNAUTHENTICATED when the link is gone or revoked (the row is then removed). */
  async get (key: string): Promise<string> {
    const cached = this.#cache.get(key)
    if (cached != null && Date.now() < cached.renewAt) return cached.token
    let pending = this.#inflight.get(key)
    if (pending == null) {
      pending = this.store
        .exclusive(key, async () => await this.#refresh(key))
        .finally(() => this.#inflight.delete(key))
      this.#inflight.set(key, pending)
    }
    return await pending
  }

  async #refresh (key: string): Promise<string> {
    const link = await this.store.get(key)
    if (link == null) {
      this.#cache.delete(key)
      throw new UnauthenticatedError('not linked')
    }
    // Another process may have refreshed while this one waited for the lock.
    if (link.accessToken != null && link.renewAt != null && Date.now() < link.renewAt) {
      this.seed(key, link.accessToken, link.renewAt)
      return link.accessToken
    }
    let session
    try {
      session = await this.auth.refresh(link.refreshToken)
    } catch (err) {
      if (err instanceof UnauthenticatedError) {
        this.#cache.delete(key)
        await this.store.delete(key)
      }
      throw err
    }
    const renewAt = this.renewAt(session.accessToken)
    await this.store.set(key, {
      ...link,
      refreshToken: session.refreshToken,
      accessToken: session.accessToken,
      renewAt
    })
    this.seed(key, session.accessToken, renewAt)
    return session.accessToken
  }
}
