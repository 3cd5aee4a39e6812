import type { FastifyRequest } from 'fastify'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { normalizeError } from '@svc/core/kit'
import { errorAnswer, isRequest } from './json-transport.js'

/**
 * Each JSON-RPC call of a POST is one request for the rate limits (`request.countRequests`, the
 * host's limiter; the POST itself was counted when it arrived). The calls past the budget are
 * answered with a JSON-RPC error carrying the service's RATE_LIMITED envelope, and not run.
 */
export async function overBudget (
  request: FastifyRequest,
  messages: JSONRPCMessage[]
): Promise<Map<RequestId, JSONRPCMessage>> {
  const refused = new Map<RequestId, JSONRPCMessage>()
  const calls = messages.filter(isRequest)
  if (request.countRequests === undefined) return refused
  for (const m of calls.slice(1)) {
    try {
      await request.countRequests(1)
    } catch (err) {
      const { body } = normalizeError(err)
      refused.set(m.id, errorAnswer(m.id, body.error.message, body))
    }
  }
  return refused
}

/** The answers in the order of the requests that asked (a cancelled call has none). */
export function inOrder (
  messages: JSONRPCMessage[],
  answers: JSONRPCMessage[],
  refused: Map<RequestId, JSONRPCMessage>
): JSONRPCMessage[] {
  if (refused.size === 0) return answers
  const byId = new Map(answers.map((a) => [(a as { id: RequestId }).id, a]))
  const out: JSONRPCMessage[] = []
  for (const m of messages) {
    if (!isRequest(m)) continue
    const a = refused.get(m.id) ?? byId.get(m.id)
    if (a !== undefined) out.push(a)
  }
  return out
}
