/** One parsed Server-Sent Events message (or a comment line). */
export interface SseMessage {
  id?: string
  event: string
  data?: any
  comment?: string
}

export interface SseConnection {
  status: number
  headers: Headers
  /** The JSON error envelope when the status is not 200. */
  body?: any
  messages: SseMessage[]
  /** Events (not comments, not `retry`). */
  events: () => SseMessage[]
  /** Resolves once `n` events arrived (rejects after `timeoutMs`). */
  waitFor: (n: number, timeoutMs?: number) => Promise<SseMessage[]>
  /** Resolves when the server ended the stream. */
  ended: Promise<void>
  close: () => void
}

/**
 * A minimal SSE reader over fetch (the WHATWG parsing rules the tests need: `id`, `event`,
 * `data`, comments), keeping every message so tests can assert order and count.
 */
export async function openSse (url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const ac = new AbortController()
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal })
  const messages: SseMessage[] = []
  const waiters: Array<() => void> = []
  const events = (): SseMessage[] => messages.filter((m) => m.comment === undefined && m.event !== 'retry')
  if (res.status !== 200) {
    const body = await res.json()
    return {
      status: res.status,
      headers: res.headers,
      body,
      messages,
      events,
      waitFor: async () => [],
      ended: Promise.resolve(),
      close: () => {}
    }
  }
  const ended = (async () => {
    const decoder = new TextDecoder()
    let buf = ''
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true })
        let at: number
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at)
          buf = buf.slice(at + 2)
          const msg: SseMessage = { event: 'message' }
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) msg.comment = line.slice(1).trim()
            else if (line.startsWith('id: ')) msg.id = line.slice(4)
            else if (line.startsWith('event: ')) msg.event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
            else if (line.startsWith('retry: ')) msg.event = 'retry'
          }
          if (data.length > 0) msg.data = JSON.parse(data.join('\n'))
          messages.push(msg)
          for (const w of waiters.splice(0)) w()
        }
      }
    } catch {
      // aborted by the test, or the server dropped the connection
    }
    for (const w of waiters.splice(0)) w()
  })()
  let done = false
  void ended.then(() => {
    done = true
  })
  const waitFor = async (n: number, timeoutMs = 10_000): Promise<SseMessage[]> => {
    const deadline = Date.now() + timeoutMs
    while (events().length < n) {
      if (done) throw new Error(`stream ended with ${events().length} of ${n} events`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`${events().length} of ${n} events after ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return events()
  }
  return {
    status: 200,
    headers: res.headers,
    messages,
    events,
    waitFor,
    ended,
    close: () => {
      ac.abort()
    }
  }
}
