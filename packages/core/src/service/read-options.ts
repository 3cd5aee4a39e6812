import type { RequestContext } from '../identity.js'

/**
 * The options of every read a caller drives: its time bound (`queryTimeoutMs`) and, when the
 * caller can give up (a cancelled MCP call, a shutdown), its abort signal: the driver then stops
 * the read and frees the connection instead of finishing work nobody will read.
 */
export function readOptions (
  target: { maxTimeMS: number },
  ctx: RequestContext
): { maxTimeMS: number; signal?: AbortSignal } {
  return ctx.signal === undefined
    ? { maxTimeMS: target.maxTimeMS }
    : { maxTimeMS: target.maxTimeMS, signal: ctx.signal }
}
