import { errorFromResponse, SvcError } from './errors.js'
import { MemoryTokenStore, type TokenStore, type Tokens } from './tokens.js'

export interface ClientOptions {
  /** The service's address, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string
  /** A fixed bearer (e.g. from `svc token mint`); never refreshed. Wins over `tokens`. */
  accessToken?: string
  /** Where the session's tokens live; `login()` fills it and refreshes rotate it. Default: in memory. */
  tokens?: TokenStore
  /** `X-Client-Id` of an api client (read-only surfaces); a bearer, when there is one, wins on the server. */
  clientId?: string
  /** Retries of idempotent requests (GETs, creates with an `idempotencyKey`); default 2. */
  retries?: number
  /** First retry delay in ms, doubled each time; default 200. */
  retryDelayMs?: number
  /** Extra headers on every request. */
  headers?: Record<string, string>
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface RequestSpec {
  method: Method
  /** Below `baseUrl`, starting with `/`. */
  path: string
  query?: URLSearchParams
  json?: unknown
  form?: FormData
  idempotencyKey?: string
  signal?: AbortSignal
  /** `false` for the auth routes themselves (no bearer, no refresh). */
  auth?: boolean
}

/** Statuses worth another try of an idempotent request: the service or a proxy was briefly unable to answer. */
const RETRY_STATUSES = new Set([429, 502, 503, 504])
const MAX_RETRY_AFTER_MS = 10_000

function sleep (ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

async function readBody (res: Response): Promise<unknown> {
  const text = await res.text()
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The one place requests are made: base URL, auth headers, refresh-token rotation, retries of
 * idempotent requests, abort signals, and the error envelope turned into `SvcError`.
 */
export class Transport {
  readonly baseUrl: string
  readonly tokens: TokenStore
  readonly #opts: ClientOptions
  readonly #fetch: typeof globalThis.fetch
  #refreshing: Promise<boolean> | null = null

  constructor (opts: ClientOptions) {
    if (typeof opts.baseUrl !== 'string' || !/^https?:\/\/\S+$/.test(opts.baseUrl)) {
      throw new TypeError('@svc/client: baseUrl must be an http(s) URL')
    }
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '')
    this.tokens = opts.tokens ?? new MemoryTokenStore()
    this.#opts = opts
    // Bound: a bare `fetch` reference loses its `this` in browsers ("Illegal invocation").
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis)
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const retryable = spec.method === 'GET' || (spec.method === 'POST' && spec.idempotencyKey !== undefined)
    const retries = retryable ? (this.#opts.retries ?? 2) : 0
    let refreshed = false
    for (let attempt = 0; ; attempt++) {
      const sentToken = spec.auth === false ? undefined : await this.#bearer()
      let res: Response
      try {
        res = await this.#fetch(this.#url(spec), {
          method: spec.method,
          headers: this.#headers(spec, sentToken),
          body: this.#body(spec),
          signal: spec.signal
        })
      } catch (err) {
        if (spec.signal?.aborted === true) throw spec.signal.reason
        if (attempt < retries) {
          await this.#backoff(attempt, null, spec.signal)
          continue
        }
        throw new SvcError({
          code: 'NETWORK',
          status: 0,
          message: `${spec.method} ${spec.path}: ${err instanceof Error ? err.message : String(err)}`,
          cause: err
        })
      }
      const requestId = res.headers.get('x-request-id') ?? undefined
      const body = await readBody(res)
      if (res.ok) {
        if (typeof body === 'string') {
          throw new SvcError({
            code: 'BAD_RESPONSE',
            status: res.status,
            message: `${spec.method} ${spec.path}: the answer is not JSON`,
            ...(requestId !== undefined ? { requestId } : {})
          })
        }
        return body as T
      }
      const error = errorFromResponse(res.status, body, requestId)
      if (
        res.status === 401 &&
        error.code === 'UNAUTHENTICATED' &&
        sentToken !== undefined &&
        !refreshed &&
        this.#opts.accessToken === undefined
      ) {
        refreshed = true
        if (await this.#refresh(sentToken)) {
          attempt--
          continue
        }
      }
      const transient = RETRY_STATUSES.has(res.status) && error.code !== 'QUERY_TIMEOUT'
      if (transient && attempt < retries) {
        await this.#backoff(attempt, res.headers.get('retry-after'), spec.signal)
        continue
      }
      throw error
    }
  }

  /**
   * A `text/event-stream` GET: the response once the service answered 200, with the same
   * credentials and refresh as `request` (not retried: a subscription reconnects itself).
   */
  async stream (spec: { path: string; query?: URLSearchParams; signal?: AbortSignal }): Promise<Response> {
    for (let refreshed = false; ; refreshed = true) {
      const sentToken = await this.#bearer()
      const headers = { ...this.#headers({ method: 'GET', path: spec.path }, sentToken), accept: 'text/event-stream' }
      let res: Response
      try {
        res = await this.#fetch(this.#url({ method: 'GET', ...spec }), { headers, signal: spec.signal })
      } catch (err) {
        if (spec.signal?.aborted === true) throw spec.signal.reason
        throw new SvcError({
          code: 'NETWORK',
          status: 0,
          message: `GET ${spec.path}: ${err instanceof Error ? err.message : String(err)}`,
          cause: err
        })
      }
      if (res.status === 200) return res
      const error = errorFromResponse(res.status, await readBody(res), res.headers.get('x-request-id') ?? undefined)
      const canRefresh =
        res.status === 401 && sentToken !== undefined && !refreshed && this.#opts.accessToken === undefined
      if (!canRefresh || !(await this.#refresh(sentToken))) throw error
    }
  }

  /** Saves a session's tokens (the answer of `POST /login` or `POST /register`). */
  async setSession (tokens: Tokens | null): Promise<void> {
    await this.tokens.set(
      tokens === null
        ? null
        : {
            accessToken: tokens.accessToken,
            ...(tokens.refreshToken !== undefined ? { refreshToken: tokens.refreshToken } : {})
          }
    )
  }

  async #bearer (): Promise<string | undefined> {
    if (this.#opts.accessToken !== undefined) return this.#opts.accessToken
    return (await this.tokens.get())?.accessToken
  }

  /**
   * Exchanges the refresh token once for every request that failed with the same access token
   * (the service revokes a family when a token is presented twice). True when a retry may work.
   */
  async #refresh (sentToken: string): Promise<boolean> {
    const current = await this.tokens.get()
    if (current == null) return false
    if (current.accessToken !== sentToken) return true // another request already refreshed
    if (current.refreshToken === undefined) return false
    this.#refreshing ??= (async () => {
      try {
        const next = await this.request<Tokens>({
          method: 'POST',
          path: '/auth/refresh',
          json: { refreshToken: current.refreshToken },
          auth: false
        })
        await this.setSession(next)
        return true
      } catch (err) {
        if (err instanceof SvcError && err.status === 401) {
          await this.setSession(null)
          return false
        }
        throw err
      } finally {
        this.#refreshing = null
      }
    })()
    return await this.#refreshing
  }

  #url (spec: RequestSpec): string {
    const qs = spec.query?.toString() ?? ''
    return `${this.baseUrl}${spec.path}${qs === '' ? '' : `?${qs}`}`
  }

  #headers (spec: RequestSpec, bearer: string | undefined): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', ...this.#opts.headers }
    if (spec.json !== undefined) h['content-type'] = 'application/json'
    if (bearer !== undefined) h.authorization = `Bearer ${bearer}`
    if (this.#opts.clientId !== undefined && spec.auth !== false) h['x-client-id'] = this.#opts.clientId
    if (spec.idempotencyKey !== undefined) h['idempotency-key'] = spec.idempotencyKey
    return h
  }

  #body (spec: RequestSpec): string | FormData | undefined {
    if (spec.form !== undefined) return spec.form
    return spec.json === undefined ? undefined : JSON.stringify(spec.json)
  }

  async #backoff (attempt: number, retryAfter: string | null, signal: AbortSignal | undefined): Promise<void> {
    const base = (this.#opts.retryDelayMs ?? 200) * 2 ** attempt
    const seconds = retryAfter === null ? NaN : Number(retryAfter)
    const wait = Number.isFinite(seconds) ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : base
    // Jitter: clients retrying the same outage do not come back in lockstep.
    await sleep(wait * (0.75 + Math.random() * 0.5), signal)
  }
}
