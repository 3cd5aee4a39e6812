import type { ListResult, RequestContext } from '@svc/core'

/** `create`, `update`, `delete`, `restore`, `transition`: named after the operation (spec). */
export type AuditAction = 'create' | 'update' | 'delete' | 'restore' | 'transition' | (string & {})

/** Who did it, copied from the verified identity (never from a body). */
export interface AuditActor {
  kind: 'user' | 'client' | 'system'
  userId: string | null
  email?: string
  roles: string[]
  clientId?: string
}

/** Field-level change: only fields whose value differs; a missing field is `null`. */
export type AuditDiff = Record<string, { from: unknown; to: unknown }>

/** One row of `audit_log` as stored. */
export interface AuditRow {
  _id: import('mongodb').ObjectId
  action: AuditAction
  recordId: string
  path: string
  version: string
  /** The record's tenant (not the actor's: an `acl.delete` role may act on another tenant's record). */
  userId: string | null
  actor: AuditActor
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  diff: AuditDiff
  requestId: string | null
  /** Bulk PUT rows: the caller's filter (one row per changed record). */
  bulkFilter?: Record<string, unknown>
  /** `action: 'migrate'` rows: the migration (`svc schema apply`) that changed the record. */
  migration?: string
  at: Date
}

/** A history entry as `GET /:id/history` returns it (CONTRACT.md). */
export interface HistoryEntry {
  _id: string
  action: AuditAction
  recordId: string
  userId: string | null
  actor: AuditActor
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  diff: AuditDiff
  /** `action: 'migrate'`: the migration's name. */
  migration?: string
  at: string
}

/** The list envelope of `GET /:id/history`. */
export type HistoryPage = Omit<ListResult, 'results' | 'nextCursor' | 'totalResults' | 'totalPages'> & {
  results: HistoryEntry[]
  totalResults: number
  totalPages: number
}

export interface AuditOptions {
  /** The clock for `at` (tests); default `() => new Date()`. */
  now?: () => Date
}

/** `app.svc.audit`: for other surfaces (GraphQL `historyByDoc`, MCP `history_<path>`) and operators. */
export interface AuditApi {
  /** A record's history, newest first, projected for the caller; 404 when the caller cannot read the record. */
  history(
    ctx: RequestContext,
    path: string,
    id: string,
    paging?: { page?: number; perPage?: number },
    version?: string
  ): Promise<HistoryPage>
}

declare module '@svc/core' {
  interface SvcContext {
    /** Present when @svc/audit is registered. */
    audit?: AuditApi
  }
}
