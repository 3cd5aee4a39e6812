import type { RequestContext, ResourceService } from '@svc/core'
import type { AuditDiff, AuditRow, HistoryEntry } from '../types.js'

type Readable = Set<string> | null

/**
 * The reader's readable top-level fields: core's own `readableFields` when present (the same
 * projection as every other answer), else computed from the fields' `acl.read` slots.
 */
export function readableFor (service: ResourceService, ctx: RequestContext): Readable {
  const own = (service as unknown as { readableFields?: (c: RequestContext) => Readable }).readableFields
  if (typeof own === 'function') return own.call(service, ctx)
  const model = service.model
  if (ctx.system === true || model.fields.every((f) => f.acl?.read === undefined)) return null
  const roles = ctx.identity?.roles ?? []
  const out = new Set<string>(['_id', 'userId', 'accountId', 'createdAt', 'updatedAt', 'deletedAt'])
  for (const f of model.fields) if (f.acl?.read === undefined || f.acl.read.some((r) => roles.includes(r))) out.add(f.name)
  return out
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
    at: row.at.toISOString()
  }
}
