import { isDeepStrictEqual } from 'node:util'
import type { AuditDiff } from '../types.js'

// `_id` never changes and `updatedAt` changes on every write: listing them is noise.
const IGNORED = new Set(['_id', 'updatedAt'])

/** Top-level field diff of two JSON records; a missing side or field counts as null. */
export function diffRecords (
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined
): AuditDiff {
  const b = before ?? {}
  const a = after ?? {}
  const out: AuditDiff = {}
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (IGNORED.has(key)) continue
    const from = b[key] ?? null
    const to = a[key] ?? null
    if (!isDeepStrictEqual(from, to)) out[key] = { from, to }
  }
  return out
}
