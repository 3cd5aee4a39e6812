// Where the signed-in person's tokens live. The access token (15 minutes by default) stays in
// memory only; the refresh token, which the service rotates on every use, is kept in this tab's
// sessionStorage so a reload keeps the session, and nothing survives the tab (README: Tokens).
import type { TokenStore, Tokens } from '@svc/client'

const REFRESH_KEY = 'svc-console.refreshToken'

export interface Identity {
  userId: string
  email: string
  roles: string[]
}

/** The claims of an access token, read for display and field ACL hints; the server verifies it. */
export function identityOf (accessToken: string): Identity | null {
  try {
    const part = accessToken.split('.')[1] ?? ''
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'))
    const claims = JSON.parse(json) as { user_id?: unknown; email?: unknown; roles?: unknown }
    if (typeof claims.user_id !== 'string') return null
    return {
      userId: claims.user_id,
      email: typeof claims.email === 'string' ? claims.email : '',
      roles: Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : []
    }
  } catch {
    return null
  }
}

type Listener = (tokens: Tokens | null) => void

export class ConsoleTokenStore implements TokenStore {
  #tokens: Tokens | null = null
  readonly #listeners = new Set<Listener>()

  /** The refresh token a reload left behind (the access token is gone with the old page). */
  storedRefreshToken (): string | null {
    return sessionStorage.getItem(REFRESH_KEY)
  }

  get (): Tokens | null {
    return this.#tokens
  }

  set (tokens: Tokens | null): void {
    this.#tokens = tokens
    if (tokens?.refreshToken !== undefined) sessionStorage.setItem(REFRESH_KEY, tokens.refreshToken)
    else sessionStorage.removeItem(REFRESH_KEY)
    for (const l of this.#listeners) l(tokens)
  }

  /** Called on every change: sign-in, each refresh, sign-out, and a refused refresh (null). */
  subscribe (l: Listener): () => void {
    this.#listeners.add(l)
    return () => {
      this.#listeners.delete(l)
    }
  }
}
