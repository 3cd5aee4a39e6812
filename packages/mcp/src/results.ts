import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { normalizeError } from '@svc/core/kit'
import type { ToolOutput } from './types.js'

/**
 * Cuts a list-like answer to `maxChars` of JSON: trailing results are dropped until it fits,
 * `truncated` says so and `hint` tells the model how to get the rest (a smaller page). Returns
 * the JSON text it measured, so the common case serializes once.
 */
export function bound (out: ToolOutput, maxChars: number): { structured: Record<string, unknown>; json: string } {
  const structured = out.list === undefined ? out.structured : { ...out.structured, truncated: false }
  const json = JSON.stringify(structured)
  if (out.list === undefined || json.length <= maxChars) return { structured, json }
  const items = structured[out.list] as unknown[]
  const fixed = json.length - items.reduce<number>((n, x) => n + JSON.stringify(x).length + 1, 0)
  let room = maxChars - fixed - 200 // the hint's own length
  let keep = 0
  while (keep < items.length) {
    room -= JSON.stringify(items[keep]).length + 1
    if (room < 0) break
    keep++
  }
  const hint =
    keep === 0
      ? 'not even one result fits the answer size: ask for fewer fields of data through filters, or read records one by one with get_'
      : `only the first ${keep} of ${items.length} results fit the answer size: call again with perPage=${keep} to page through all of them`
  const cut = { ...structured, [out.list]: items.slice(0, keep), truncated: true, hint }
  return { structured: cut, json: JSON.stringify(cut) }
}

/** A successful call: `structuredContent` plus a one-line summary followed by the same data as JSON (for clients that only show text). */
export function success (out: ToolOutput, maxChars: number): CallToolResult {
  const { structured, json } = bound(out, maxChars)
  const summary = structured.truncated === true ? `${out.summary} (truncated: ${String(structured.hint)})` : out.summary
  return { content: [{ type: 'text', text: `${summary}\n${json}` }], structuredContent: structured }
}

// The service names REST's parameters in `details.field`; a model knows them as tool arguments.
const ARGUMENT_NAMES: Record<string, string> = {
  __sort: 'sort',
  __page: 'page',
  __perPage: 'perPage',
  __include: 'include',
  __includeDeleted: 'includeDeleted',
  'Idempotency-Key': 'idempotencyKey'
}

/**
 * A failed call as a tool result, never a JSON-RPC error: the service's envelope
 * `{ error: { code, message, details? } }` with its stable code, as JSON text, so the model can
 * read and correct it. No `structuredContent`: it would have to match the success schema.
 */
export function failure (err: unknown, production: boolean): { result: CallToolResult; status: number } {
  const { statusCode, body } = normalizeError(err, { production })
  const field = body.error.details?.field
  if (typeof field === 'string' && Object.hasOwn(ARGUMENT_NAMES, field)) {
    body.error.details!.field = ARGUMENT_NAMES[field]
  }
  return { result: { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] }, status: statusCode }
}
