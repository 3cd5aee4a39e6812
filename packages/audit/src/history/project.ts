import type { RequestContext, ResourceService } from '@svc/core'
import type { AuditDiff, AuditRow, HistoryEntry } from '../types.js'

type Readable = Set<string> | null

/** The reader's readable top-level fields, exactly as core projects every other answer (null: all). */
export function readableFor (service: ResourceService, ctx: RequestContext): Readable {
  return service.readableFields(ctx)
}

function strip (record: Record<string, unknown> | null, readable: Readable): Record<string, unknown> | null {
  if (record == null || readable === null) return record
  return Object.fromEntries(Object.entries(record).filter(([k]) => readable.has(k)))
}

function stripDiff (diff: AuditDiff, readable: Readable): AuditDiff {
  if (readable === null) return diff
  return Object.fromEntries(Object.entries(diff).filter(([k]) => readable.has(k)))
}

/** A stored row as the reader may see it: a field hidden from them never appears, not even in the diff. */
export function toEntry (row: AuditRow, readable: Readable): HistoryEntry {
  return {
    _id: String(row._id),
    action: row.action,
    recordId: row.recordId,
    userId: row.userId,
    actor: row.actor,
    before: strip(row.before, readable),
    after: strip(row.after, readable),
    diff: stripDiff(row.diff ?? {}, readable),
    ...(row.migration !== undefined ? { migration: row.migration } : {}),
    at: row.at.toISOString()
  }
}
