/** One Server-Sent Events message. */
export interface SseMessage {
  id?: string
  event: string
  data: string
}

/**
 * Reads a `text/event-stream` body (WHATWG parsing: `id`, `event`, `data` lines, comments and
 * `retry` ignored) with a stream reader, which every browser and Node ≥ 18 have.
 */
export async function * readSse (body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buf = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n')
      for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
        const block = buf.slice(0, end)
        buf = buf.slice(end + 2)
        const msg: SseMessage = { event: 'message', data: '' }
        const data: string[] = []
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':')
          if (colon === 0) continue
          const field = colon < 0 ? line : line.slice(0, colon)
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'id') msg.id = value
          else if (field === 'event') msg.event = value
          else if (field === 'data') data.push(value)
        }
        if (data.length === 0 && msg.id === undefined) continue
        msg.data = data.join('\n')
        yield msg
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
