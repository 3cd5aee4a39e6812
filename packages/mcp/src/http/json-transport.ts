import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js'

type Answer = (message: JSONRPCMessage) => void

export function isRequest (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in m && 'id' in m
}

function isResponse (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } {
  return ('result' in m || 'error' in m) && 'id' in m
}

/** `notifications/cancelled` naming a request: the id it cancels. */
function cancelledId (m: JSONRPCMessage): RequestId | undefined {
  if (!('method' in m) || 'id' in m || m.method !== 'notifications/cancelled') return undefined
  const id = (m.params as { requestId?: unknown } | undefined)?.requestId
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

/** A JSON-RPC error answer for `id` (server error range: the request was not completed). */
export function errorAnswer (id: RequestId, message: string, data?: unknown): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32000, message, ...(data !== undefined ? { data } : {}) } }
}

/**
 * The SDK `Transport` under one pooled `Server`: it carries the messages of one HTTP POST at a
 * time and hands the responses back as values, which the route sends as the JSON body
 * (Streamable HTTP, stateless, JSON-response mode). It stays connected across requests, so a
 * request costs no connect/close, no web Request/Response objects and no stream reads.
 *
 * `abandon` answers every request still waiting with an error (shutdown).
 */
export class JsonResponseTransport implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  readonly #waiting = new Map<RequestId, Answer>()

  async start (): Promise<void> {}

  async close (): Promise<void> {
    this.onclose?.()
  }

  /** Responses settle their request; anything else (progress, logging) has no stream to go to in JSON mode, as in the SDK's own transport. */
  async send (message: JSONRPCMessage): Promise<void> {
    if (isResponse(message)) this.#settle(message.id, message)
  }

  #settle (id: RequestId, answer: JSONRPCMessage): void {
    const settle = this.#waiting.get(id)
    if (settle === undefined) return
    this.#waiting.delete(id)
    settle(answer)
  }

  /**
   * Dispatches one POST's messages (already validated), at most `concurrency` requests at a time
   * and in order, so one batch cannot crowd out other clients; resolves with the responses to its
   * requests, in order. A request that a later message of the same POST cancels is never run:
   * no response is due for it (the spec), and nothing is held for it; a cancellation of anything
   * else cancels nothing (a POST's calls are all this server has in flight for it).
   */
  async exchange (
    messages: JSONRPCMessage[],
    extra: MessageExtraInfo,
    concurrency = Infinity
  ): Promise<JSONRPCMessage[]> {
    const cancelled = new Set<RequestId>()
    const asked = new Set<RequestId>()
    for (const m of messages) {
      if (isRequest(m)) asked.add(m.id)
      const id = cancelledId(m)
      if (id !== undefined && asked.has(id)) cancelled.add(id)
    }
    const answers: Array<Promise<JSONRPCMessage>> = []
    const running = new Set<Promise<unknown>>()
    for (const m of messages) {
      // Cancellations are settled here: handed to the SDK (which handles notifications a tick
      // late), one arriving before its request would abort it and leave it unanswered.
      if (cancelledId(m) !== undefined || (isRequest(m) && cancelled.has(m.id))) continue
      while (running.size >= concurrency) await Promise.race(running)
      if (isRequest(m)) {
        const answer = new Promise<JSONRPCMessage>((resolve) => {
          this.#waiting.set(m.id, resolve)
        })
        answers.push(answer)
        const settled = answer.finally(() => running.delete(settled))
        running.add(settled)
      }
      this.onmessage?.(m, extra)
    }
    return await Promise.all(answers)
  }

  /** A response due for `id` that something other than `exchange` produces (the pool's direct calls); `abandon` settles it too. */
  async expect (id: RequestId): Promise<JSONRPCMessage> {
    return await new Promise<JSONRPCMessage>((resolve) => {
      this.#waiting.set(id, resolve)
    })
  }

  /** Answers every request still waiting with `message` (their handlers were told to stop). */
  abandon (message: string): void {
    for (const id of [...this.#waiting.keys()]) this.#settle(id, errorAnswer(id, message))
  }
}
