import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js'

type Answer = (message: JSONRPCMessage) => void

export function isRequest (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId, method: string } {
  return 'method' in m && 'id' in m
}

function isResponse (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } {
  return ('result' in m || 'error' in m) && 'id' in m
}

/**
 * The SDK `Transport` under one pooled `Server`: it carries the messages of one HTTP POST at a
 * time and hands the responses back as values, which the route sends as the JSON body
 * (Streamable HTTP, stateless, JSON-response mode). It stays connected across requests, so a
 * request costs no connect/close, no web Request/Response objects and no stream reads.
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
    if (!isResponse(message)) return
    const answer = this.#waiting.get(message.id)
    if (answer === undefined) return
    this.#waiting.delete(message.id)
    answer(message)
  }

  /** Dispatches one POST's messages (already validated); resolves with the responses to its requests, in order. */
  async exchange (messages: JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    const answers = messages.filter(isRequest).map(async (m) => await new Promise<JSONRPCMessage>((resolve) => { this.#waiting.set(m.id, resolve) }))
    for (const m of messages) this.onmessage?.(m, extra)
    return await Promise.all(answers)
  }
}
