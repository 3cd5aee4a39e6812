import { request } from 'undici'
import { RateLimitedError, ServiceUnavailableError, UnauthenticatedError } from '../errors.js'

const TIMEOUT_MS = 10_000

export interface Session {
  accessToken: string
  refreshToken: string
  userId?: string
}

/** The service's own auth routes, called server-to-server (CONTRACT bodies). */
export class SvcAuth {
  readonly #base: string

  constructor (svcUrl: string) {
    this.#base = svcUrl.replace(/\/+$/, '')
  }

  async #post (
    path: string,
    body: unknown,
    headers: Record<string, string> = {}
  ): Promise<{ status: number; json: any; retryAfter?: string }> {
    try {
      const res = await request(`${this.#base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS
      })
      const text = await res.body.text()
      let json: any = null
      try {
        json = JSON.parse(text)
      } catch {}
      const retryAfter = res.headers['retry-after']
      return { status: res.statusCode, json, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) }
    } catch (err) {
      // The cause keeps the address for the log; the person sees none.
      throw new ServiceUnavailableError('the service is unreachable, try again later', undefined, { cause: err })
    }
  }

  /**
   * `POST /login`; null on wrong credentials. `clientIp` (the person's address as the agent saw
   * it) goes as `X-Forwarded-For`: a service that trusts the agent as its proxy (`TRUST_PROXY`)
   * then counts its per-address sign-in limit per person, not for the agent as a whole.
   */
  async login (email: string, password: string, clientIp?: string): Promise<Session | null> {
    const { status, json, retryAfter } = await this.#post(
      '/login',
      { email, password },
      clientIp != null ? { 'x-forwarded-for': clientIp } : {}
    )
    if (status === 429) {
      const seconds = Number(retryAfter)
      throw new RateLimitedError(
        'too many sign-in attempts, try again later',
        Number.isFinite(seconds) && seconds > 0 ? { retryAfterSeconds: Math.ceil(seconds) } : undefined
      )
    }
    if (status === 401 || status === 400) return null
    if (status !== 200 || typeof json?.accessToken !== 'string' || typeof json?.refreshToken !== 'string') {
      throw new ServiceUnavailableError('the service could not sign you in, try again later', { status })
    }
    return { accessToken: json.accessToken, refreshToken: json.refreshToken, userId: json.user?._id }
  }

  /** `POST /auth/refresh`: a new pair (the refresh token rotates). UNAUTHENTICATED when revoked. */
  async refresh (refreshToken: string): Promise<Session> {
    const { status, json } = await this.#post('/auth/refresh', { refreshToken })
    if (status === 401 || status === 400) throw new UnauthenticatedError('the linked session was revoked')
    if (status !== 200 || typeof json?.accessToken !== 'string' || typeof json?.refreshToken !== 'string') {
      throw new ServiceUnavailableError('the service could not renew the session, try again later', { status })
    }
    return { accessToken: json.accessToken, refreshToken: json.refreshToken }
  }
}
