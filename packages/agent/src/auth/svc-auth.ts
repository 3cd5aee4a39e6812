import { request } from 'undici'
import { ServiceUnavailableError, UnauthenticatedError } from '../errors.js'

const TIMEOUT_MS = 10_000

export interface Session { accessToken: string, refreshToken: string, userId?: string }

/** The service's own auth routes, called server-to-server (CONTRACT bodies). */
export class SvcAuth {
  readonly #base: string

  constructor (svcUrl: string) {
    this.#base = svcUrl.replace(/\/+$/, '')
  }

  async #post (path: string, body: unknown): Promise<{ status: number, json: any }> {
    try {
      const res = await request(`${this.#base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS
      })
      const text = await res.body.text()
      let json: any = null
      try { json = JSON.parse(text) } catch {}
      return { status: res.statusCode, json }
    } catch (err) {
      throw new ServiceUnavailableError(`the service at ${this.#base} is unreachable: ${(err as Error).message}`, undefined, { cause: err })
    }
  }

  /** `POST /login`; null on wrong credentials. */
  async login (email: string, password: string): Promise<Session | null> {
    const { status, json } = await this.#post('/login', { email, password })
    if (status === 401 || status === 400) return null
    if (status !== 200 || typeof json?.accessToken !== 'string' || typeof json?.refreshToken !== 'string') {
      throw new ServiceUnavailableError(`the service's /login answered ${status}`, { status })
    }
    return { accessToken: json.accessToken, refreshToken: json.refreshToken, userId: json.user?._id }
  }

  /** `POST /auth/refresh`: a new pair (the refresh token rotates). UNAUTHENTICATED when revoked. */
  async refresh (refreshToken: string): Promise<Session> {
    const { status, json } = await this.#post('/auth/refresh', { refreshToken })
    if (status === 401 || status === 400) throw new UnauthenticatedError('the linked session was revoked')
    if (status !== 200 || typeof json?.accessToken !== 'string' || typeof json?.refreshToken !== 'string') {
      throw new ServiceUnavailableError(`the service's /auth/refresh answered ${status}`, { status })
    }
    return { accessToken: json.accessToken, refreshToken: json.refreshToken }
  }
}
