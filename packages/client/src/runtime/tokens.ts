/** An access token and the refresh token that renews it (`POST /login`, `POST /auth/refresh`). */
export interface Tokens {
  accessToken: string
  refreshToken?: string
}

/**
 * Where a client keeps its tokens. Refresh tokens rotate on every use, so the store must save
 * each new pair: a browser app may back it with `sessionStorage`, a server with its own store.
 * `set(null)` is called when the session ended (the refresh token was refused).
 */
export interface TokenStore {
  get: () => Tokens | null | Promise<Tokens | null>
  set: (tokens: Tokens | null) => void | Promise<void>
}

/** Keeps tokens in memory (lost when the process or page goes). */
export class MemoryTokenStore implements TokenStore {
  #tokens: Tokens | null

  constructor (tokens: Tokens | null = null) {
    this.#tokens = tokens
  }

  get (): Tokens | null {
    return this.#tokens
  }

  set (tokens: Tokens | null): void {
    this.#tokens = tokens
  }
}
