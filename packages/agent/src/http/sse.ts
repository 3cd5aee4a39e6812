import type { ServerResponse } from 'node:http'
import type { AgentEvent } from '../runtime/events.js'

/** Opens a Server-Sent Events response on a hijacked reply. */
export function openStream (raw: ServerResponse, setCookie?: string): void {
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Proxies such as nginx would otherwise buffer the tokens.
    'x-accel-buffering': 'no'
  }
  if (setCookie != null) headers['set-cookie'] = setCookie
  raw.writeHead(200, headers)
}

/** `event: <type>` and one `data:` line of JSON carrying the same `type` (CONTRACT). */
export function writeEvent (raw: ServerResponse, event: AgentEvent): void {
  if (raw.writableEnded || raw.destroyed) return
  raw.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
}
