import { Agent, request } from 'undici'
import { sign } from './signature.js'
import type { UrlGuard } from '../ssrf/url-guard.js'

export interface SendResult {
  ok: boolean
  responseCode: number | null
  durationMs: number
  error: string | null
}

export interface SendInput {
  url: string
  secret: string
  type: string
  deliveryId: string
  body: string
}

/**
 * POSTs deliveries with undici: no redirect is followed (a 3xx is a failure), one timeout covers
 * connect, headers and body. Connections go through the guard's lookup, so a DNS name reaches
 * only addresses checked at connect time; IP literals are checked before the request.
 */
export class Sender {
  readonly #agent: Agent
  readonly #guard: UrlGuard
  readonly #timeoutMs: number

  constructor (guard: UrlGuard, timeoutMs: number, connections: number) {
    this.#guard = guard
    this.#timeoutMs = timeoutMs
    this.#agent = new Agent({
      connections,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, lookup: guard.connectLookup as never }
    })
  }

  async send (input: SendInput): Promise<SendResult> {
    const started = performance.now()
    const took = (): number => Math.round(performance.now() - started)
    try {
      // Scheme and IP literals (which skip lookup): refused here, before any socket opens.
      this.#guard.precheck(input.url)
      const res = await request(input.url, {
        method: 'POST',
        dispatcher: this.#agent,
        signal: AbortSignal.timeout(this.#timeoutMs),
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': sign(input.secret, input.body),
          'x-svc-event': input.type,
          'x-svc-delivery': input.deliveryId
        },
        body: input.body
      })
      await res.body.dump()
      const ok = res.statusCode >= 200 && res.statusCode < 300
      return { ok, responseCode: res.statusCode, durationMs: took(), error: ok ? null : `HTTP ${res.statusCode}` }
    } catch (err) {
      return { ok: false, responseCode: null, durationMs: took(), error: describe(err) }
    }
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }
}

function describe (err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message
  }
  return String(err)
}
