import { SvcError } from './errors.js'
import { readSse, type SseMessage } from './sse.js'
import type { Transport } from './transport.js'

/** A record event as `subscribe` hands it over (the realtime feed's `data`, plus its cursor). */
export interface RecordEvent<R = Record<string, unknown>, T extends string = string> {
  /** Resume after this event: the subscription does it itself; keep it to resume in a later process. */
  cursor: string
  /** The event id (the webhook body `id` of the same event). */
  id: string
  type: T
  version: string
  userId: string | null
  recordId?: string
  /** As the subscriber may read it; a soft delete's tombstone. Absent on bulk events. */
  record?: R
  filter?: Record<string, unknown>
  numAffected?: number
  at: string
}

export interface SubscribeOptions<P extends string = string> {
  /** This resource's events to follow: `created`, `<path>.updated`, `<path>.*`, `*`; default all. */
  types?: P[]
  /** Resume after this cursor (a `RecordEvent.cursor` from earlier). */
  lastEventId?: string
  signal?: AbortSignal
  /**
   * `fetch` reads the stream with the client's credentials (Node; the default without a global
   * `EventSource`); `eventsource` opens `EventSource` with a single-use ticket (the browser default).
   */
  transport?: 'fetch' | 'eventsource'
  /** First reconnect delay (ms), doubled up to 30 s while the service stays away; default 1000. */
  retryDelayMs?: number
  /** The cursor was past the service's retention: events may have been missed; re-read, then go on. */
  onReset?: (cursor: string) => void | Promise<void>
  /** Each stream that opened: the first (as `ready`), then every reconnect. */
  onConnect?: () => void
  /**
   * Each lost connection, an error or the service ending the stream (a restart, a slow consumer
   * dropped): the subscription reconnects after it.
   */
  onDisconnect?: (err: unknown) => void
}

/** A running subscription. */
export interface EventSubscription {
  /** The cursor of the last event handled (what a reconnect resumes after). */
  readonly lastEventId: string | undefined
  /** Resolves once the first stream is live. */
  readonly ready: Promise<void>
  /** Resolves when closed; rejects with a fatal error (refused credentials or types, a throwing handler). */
  readonly done: Promise<void>
  close: () => void
}

interface Target {
  stream: string
  path: string
}

const ACTIONS = ['created', 'updated', 'deleted', 'transitioned']
const MAX_DELAY_MS = 30_000

/** `created` → `<path>.created`, `*` → `<path>.*`; another resource's type is refused. */
export function qualifyTypes (path: string, types: readonly string[] | undefined): string[] {
  if (types === undefined || types.length === 0) return [`${path}.*`]
  return types.map((p) => {
    const full = p === '*' ? `${path}.*` : p.includes('.') ? p : `${path}.${p}`
    if (full.slice(0, full.lastIndexOf('.')) !== path) {
      throw new TypeError(`@svc/client: '${p}' is not an event of ${path}`)
    }
    return full
  })
}

/** Answers that will not change by trying again: stop instead of reconnecting. */
function fatal (err: unknown): boolean {
  return err instanceof SvcError && [400, 401, 403, 404].includes(err.status)
}

async function pause (ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done (): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

/**
 * Follows one resource's events, handing each to `handler` in order (one at a time), and
 * reconnects after any interruption with the cursor of the last event handled — so every event
 * is handled once, in order, across service restarts and replicas (within the retention window).
 */
export function subscribeEvents (
  http: Transport,
  target: Target,
  handler: (event: RecordEvent) => unknown,
  options: SubscribeOptions = {}
): EventSubscription {
  const types = qualifyTypes(target.path, options.types)
  const stop = new AbortController()
  options.signal?.addEventListener(
    'abort',
    () => {
      stop.abort()
    },
    { once: true }
  )
  const useEventSource =
    options.transport === 'eventsource' ||
    (options.transport === undefined && typeof (globalThis as { EventSource?: unknown }).EventSource === 'function')
  let last = options.lastEventId
  let opened!: () => void
  const ready = new Promise<void>((resolve) => {
    opened = resolve
  })
  const query = (): URLSearchParams =>
    new URLSearchParams({ types: types.join(','), ...(last !== undefined ? { lastEventId: last } : {}) })
  const open = useEventSource
    ? async (): Promise<AsyncIterable<SseMessage>> =>
      await eventSourceMessages(http, target, types, query(), stop.signal)
    : async (): Promise<AsyncIterable<SseMessage>> =>
      readSse(
        (await http.stream({ path: target.stream, query: query(), signal: stop.signal }))
          .body as ReadableStream<Uint8Array>
      )

  const run = async (): Promise<void> => {
    let delay = options.retryDelayMs ?? 1000
    while (!stop.signal.aborted) {
      try {
        const messages = await open()
        opened()
        options.onConnect?.()
        delay = options.retryDelayMs ?? 1000
        for await (const msg of messages) {
          if (stop.signal.aborted) break
          if (msg.event === 'reset') {
            await options.onReset?.(msg.id ?? '')
            last = msg.id
          } else if (msg.event !== 'error' && msg.id !== undefined) {
            await handle(msg)
          }
        }
        if (!stop.signal.aborted) options.onDisconnect?.(new Error('the service ended the event stream'))
      } catch (err) {
        if (stop.signal.aborted) break
        if (err instanceof HandlerError) throw err.cause
        if (fatal(err)) throw err
        options.onDisconnect?.(err)
      }
      if (stop.signal.aborted) break
      await pause(delay * (0.75 + Math.random() * 0.5), stop.signal)
      delay = Math.min(delay * 2, MAX_DELAY_MS)
    }
  }
  const handle = async (msg: SseMessage): Promise<void> => {
    try {
      await handler({ ...JSON.parse(msg.data), cursor: msg.id })
    } catch (err) {
      throw new HandlerError(err)
    }
    last = msg.id
  }
  const done = run().finally(() => {
    stop.abort()
    opened()
  })
  done.catch(() => {})
  return {
    get lastEventId () {
      return last
    },
    ready,
    done,
    close: () => {
      stop.abort()
    }
  }
}

class HandlerError extends Error {
  constructor (readonly cause: unknown) {
    super('subscription handler failed')
  }
}

interface EventSourceLike {
  addEventListener: (type: string, fn: (e: { data?: unknown }) => void) => void
  close: () => void
  onopen: (() => void) | null
  onerror: ((e: unknown) => void) | null
}

/**
 * The browser way: a single-use ticket (the bearer never goes into a URL), then `EventSource`
 * with the cursor. Its own reconnect would reuse the spent ticket, so a lost connection ends the
 * messages here and the subscription reconnects with a fresh ticket.
 */
async function eventSourceMessages (
  http: Transport,
  target: Target,
  types: string[],
  query: URLSearchParams,
  signal: AbortSignal
): Promise<AsyncIterable<SseMessage>> {
  const { ticket } = await http.request<{ ticket: string }>({
    method: 'POST',
    path: `${target.stream}/tickets`,
    signal
  })
  query.set('ticket', ticket)
  const Source = (globalThis as unknown as { EventSource: new (url: string) => EventSourceLike }).EventSource
  const es = new Source(`${http.baseUrl}${target.stream}?${query.toString()}`)
  const queue: Array<SseMessage | null> = []
  let wake: (() => void) | null = null
  const push = (m: SseMessage | null): void => {
    queue.push(m)
    wake?.()
    wake = null
  }
  const names = new Set([
    'reset',
    ...types.flatMap((p) => (p.endsWith('.*') ? ACTIONS.map((a) => `${target.path}.${a}`) : [p]))
  ])
  for (const name of names) {
    es.addEventListener(name, (e) => {
      push({ event: name, data: String(e.data), id: (e as { lastEventId?: string }).lastEventId })
    })
  }
  await new Promise<void>((resolve, reject) => {
    es.onopen = () => {
      resolve()
    }
    es.onerror = () => {
      es.close()
      reject(new SvcError({ code: 'NETWORK', status: 0, message: 'the event stream could not be opened' }))
    }
  })
  es.onerror = () => {
    es.close()
    push(null)
  }
  signal.addEventListener(
    'abort',
    () => {
      es.close()
      push(null)
    },
    { once: true }
  )
  return {
    async * [Symbol.asyncIterator] () {
      for (;;) {
        const m = queue.shift()
        if (m === null) return
        if (m !== undefined) {
          yield m
          continue
        }
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    }
  }
}
