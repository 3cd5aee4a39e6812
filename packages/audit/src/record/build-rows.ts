import { ObjectId } from 'mongodb'
import type { RequestContext, WriteResult } from '@svc/core'
import type { AuditActor, AuditRow } from '../types.js'
import { diffRecords } from './diff.js'

const ACTIONS: Record<string, string> = {
  created: 'create',
  updated: 'update',
  deleted: 'delete',
  transitioned: 'transition'
}

export function actorOf (ctx: RequestContext): AuditActor {
  const id = ctx.identity
  if (id == null) return { kind: 'system', userId: null, roles: [] }
  const actor: AuditActor = { kind: id.kind, userId: id.userId, roles: [...id.roles] }
  if (id.email !== undefined) actor.email = id.email
  if (id.clientId !== undefined) actor.clientId = id.clientId
  return actor
}

/**
 * The audit rows of one write result. A bulk PUT becomes one row per changed record (core
 * hands us each record's images because we asked with `wantBulkRecords()`), so a record's
 * history answers "what was it before" even after a bulk change.
 */
export function buildRows (result: WriteResult, at: Date): AuditRow[] {
  const action = result.operation ?? ACTIONS[result.action] ?? result.action
  const base = {
    action,
    path: result.model.path,
    version: result.model.version,
    actor: actorOf(result.ctx),
    requestId: result.ctx.requestId ?? null,
    // `svc schema apply`: which migration changed the record.
    ...(result.migration !== undefined ? { migration: result.migration } : {}),
    at
  }
  const row = (
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    extra: Partial<AuditRow> = {}
  ): AuditRow => {
    const rec = after ?? before ?? {}
    return {
      _id: new ObjectId(),
      ...base,
      recordId: String(rec._id ?? result.recordId),
      userId: typeof rec.userId === 'string' ? rec.userId : (result.ctx.identity?.userId ?? null),
      before,
      after,
      diff: diffRecords(before, after),
      ...extra
    }
  }
  if (result.records !== undefined) {
    return result.records.map((r) => row(r.before, r.after, { bulkFilter: result.filter }))
  }
  if (result.recordId === undefined) return [] // a bulk result without images: nothing per-record to record
  // A PUT that moves a state field publishes `updated` (full diff) then `transitioned`: the
  // transition row's diff is the state move alone, so the change is not told twice.
  const t = (result as { transition?: { field: string; from: unknown; to: unknown } }).transition
  if (action === 'transition' && t !== undefined) {
    return [
      row(result.before ?? null, result.after ?? null, { diff: { [t.field]: { from: t.from ?? null, to: t.to } } })
    ]
  }
  return [row(result.before ?? null, result.after ?? null)]
}
