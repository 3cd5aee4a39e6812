import { setTimeout as sleep } from 'node:timers/promises'
import { request, errors as undiciErrors } from 'undici'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { ModelUnavailableError } from '../errors.js'

const MAX_RETRY_AFTER_MS = 30_000
const ERROR_BODY_CHARS = 300

export interface StreamPost {
  url: string
  headers: Record<string, string>
  body: unknown
  timeoutMs: number
  retries: number
  retryBaseMs: number
  signal?: AbortSignal
}

function retryable (status: number): boolean {
  return status === 429 || status >= 500
}

function retryAfterMs (header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header
  if (value == null) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS)
  const at = Date.parse(value)
  return Number.isNaN(at) ? 0 : Math.min(Math.max(at - Date.now(), 0), MAX_RETRY_AFTER_MS)
}

/** The cause in a few words: never a message that could name an address. */
function describe (err: unknown): string {
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return 'timed out'
  }
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' ? code : 'connection failed'
}

/**
 * POSTs a streaming request and yields its Server-Sent Events. Retries with exponential backoff
 * on 429, 5xx and connection failures — only before the first event, so no token is ever
 * delivered twice. Any failure ends as a ModelUnavailableError naming the endpoint and cause.
 */
export async function * postEventStream (opts: StreamPost): AsyncGenerator<EventSourceMessage> {
  const target = new URL(opts.url)
  const where = `${target.origin}${target.pathname}`
  let attempt = 0
  for (;;) {
    let res: Awaited<ReturnType<typeof request>>
    try {
      res = await request(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...opts.headers },
        body: JSON.stringify(opts.body),
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
        signal: opts.signal
      })
    } catch (err) {
      if (opts.signal?.aborted === true) throw err
      if (attempt < opts.retries) {
        await sleep(opts.retryBaseMs * 2 ** attempt++)
        continue
      }
      throw new ModelUnavailableError(
        `model API unreachable: ${describe(err)}`,
        { reason: 'UNREACHABLE' },
        { cause: err, internal: where }
      )
    }
    if (res.statusCode >= 300) {
      const text = (await res.body.text().catch(() => '')).slice(0, ERROR_BODY_CHARS)
      if (retryable(res.statusCode) && attempt < opts.retries) {
        await sleep(Math.max(opts.retryBaseMs * 2 ** attempt++, retryAfterMs(res.headers['retry-after'])))
        continue
      }
      const hint =
        res.statusCode === 401 || res.statusCode === 403
          ? ' (check AGENT_LLM_API_KEY)'
          : res.statusCode === 404
            ? ' (check AGENT_LLM_URL and AGENT_MODEL)'
            : ''
      throw new ModelUnavailableError(
        `model API answered ${res.statusCode}${hint}`,
        { reason: 'HTTP_STATUS', status: res.statusCode },
        { internal: `${where}: ${text}` }
      )
    }
    yield * readEvents(res.body, where)
    return
  }
}

async function * readEvents (body: AsyncIterable<Buffer>, where: string): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = []
  const parser = createParser({
    onEvent: (event) => {
      pending.push(event)
    }
  })
  const decoder = new TextDecoder()
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }))
      while (pending.length > 0) yield pending.shift() as EventSourceMessage
    }
  } catch (err) {
    throw new ModelUnavailableError(
      `model API stream failed: ${describe(err)}`,
      { reason: 'STREAM' },
      { cause: err, internal: where }
    )
  }
}

/** Parses one event's JSON data, or fails with a clear error naming the provider. */
export function eventJson (event: EventSourceMessage, provider: string): any {
  try {
    return JSON.parse(event.data)
  } catch (err) {
    throw new ModelUnavailableError(
      `${provider} stream carried malformed JSON: ${event.data.slice(0, ERROR_BODY_CHARS)}`,
      { reason: 'PROTOCOL' },
      { cause: err }
    )
  }
}

/** Parses a tool call's accumulated argument text; models sometimes send nothing for `{}`. */
export function parseArgs (text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  try {
    const value = JSON.parse(text) as unknown
    return value != null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value }
  } catch {
    // Kept so the tool answers with a validation error the model can read and correct.
    return { __unparsedArguments: text }
  }
}
