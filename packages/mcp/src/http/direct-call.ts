import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { ToolArgs } from '../types.js'

/** A plain `tools/call` the pool runs itself, without the SDK server's dispatch. */
export interface DirectCall {
  id: RequestId
  name: string
  args: ToolArgs
}

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The POST's only message when it is a `tools/call` with nothing but a name and arguments (no
 * task, no `_meta`). The SDK's server would parse it twice and its answer once with zod, and run
 * it through an abort controller and three promise hops; for this one shape all that decides
 * nothing the catalog does not decide again (it validates the arguments against the tool's schema
 * and builds every result), so the pool calls the catalog directly. Anything else — other methods,
 * batches, odd params — goes to the SDK server, which answers as the protocol says.
 */
export function directCall (messages: JSONRPCMessage[]): DirectCall | undefined {
  if (messages.length !== 1) return undefined
  const m = messages[0] as { id?: RequestId; method?: string; params?: unknown }
  if (m.method !== 'tools/call' || m.id === undefined || !isPlainObject(m.params)) return undefined
  const { name, arguments: args, ...rest } = m.params
  if (typeof name !== 'string' || Object.keys(rest).length > 0) return undefined
  if (args !== undefined && !isPlainObject(args)) return undefined
  return { id: m.id, name, args: args ?? {} }
}

/** The JSON-RPC error answer the SDK's `Protocol` sends when a request handler throws. */
export function handlerError (id: RequestId, err: unknown): JSONRPCMessage {
  const e = err as { code?: unknown; message?: string; data?: unknown }
  const code = Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message: e.message ?? 'Internal error', ...(e.data !== undefined ? { data: e.data } : {}) }
  }
}
