import type { Document } from 'mongodb'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import type { Operation } from './tenancy.js'

export type RecordJson = Record<string, unknown> & { _id: string }

export interface ReadOptions {
  /** Honoured by a soft-delete scope; core alone has no tombstones. */
  includeDeleted?: boolean
  /** `__include`: relation names, comma-separated or an array (one hop). */
  include?: string | string[]
}

export interface ListQuery extends ReadOptions {
  /** Field filters: equality values or allow-listed operator objects (JSON text is decoded). */
  filter?: Record<string, unknown>
  /** `a:asc,b:desc`; default `createdAt:desc`. */
  sort?: string | string[]
  /** Text search over the schema's `searchable` fields; default sort becomes text score. */
  q?: string
  page?: number
  perPage?: number
  /** `__cursor`: continues after the page that answered this `nextCursor` (same filter, sort and perPage). */
  cursor?: string
  /** `__count`: false skips counting (`totalResults` and `totalPages` are null); default true. */
  count?: boolean
}

export interface ListResult {
  results: RecordJson[]
  /** null when the caller asked for no count (`__count=false`). */
  totalResults: number | null
  page: number
  perPage: number
  totalPages: number | null
  nextPage: number | null
  prevPage: number | null
  /** Continues after this page's last record (`__cursor`); null on the last page. */
  nextCursor: string | null
}

/**
 * Extension point 1 — a scope adds a filter to every read and write of the service
 * (soft delete: `{ deletedAt: null }` unless `options.includeDeleted`). Return undefined to add nothing.
 */
export type Scope = (args: {
  ctx: RequestContext
  op: Operation
  options: ReadOptions
  model: ResourceModel
}) => Document | undefined

/**
 * Extension point 2 — what a delete-by-id does to the stored record: `null` removes it (the
 * default), `{ $set?, $unset? }` of top-level fields turns it into a tombstone instead. Core
 * applies it to the record it read (tenant and every scope already checked) and stamps
 * `updatedAt`, so the delete goes through the same durable write path as every other write.
 */
export type DeleteStrategy = (args: {
  ctx: RequestContext
  model: ResourceModel
  record: Document
}) => TombstoneUpdate | null

/** A tombstone: top-level fields to set and to remove. */
export interface TombstoneUpdate {
  $set?: Document
  $unset?: Record<string, ''>
}

/**
 * What a successful write did; handed to write subscribers and turned into the record event.
 * `before`/`after` are whole records (JSON form), not projected for the actor: audit stores them
 * and projects per reader; webhooks project per subscriber.
 */
export interface WriteResult {
  action: 'created' | 'updated' | 'deleted' | 'transitioned'
  /**
   * Unique per write (24 hex), the same for every result of one write (a PUT's `updated` and
   * `transitioned`): durable effects derive deterministic `_id`s from it.
   */
  writeId: string
  model: ResourceModel
  ctx: RequestContext
  recordId?: string
  before?: RecordJson | null
  after?: RecordJson | null
  /** Bulk writes: the caller's (cast) filter and the count. */
  filter?: Record<string, unknown>
  numAffected?: number
  /**
   * Bulk writes: each changed record's images (bulk updates only when a plugin called
   * `wantBulkRecords()`; bulk deletes always, `after` null for a removal).
   */
  records?: Array<{ before: RecordJson; after: RecordJson | null }>
  /** Set when the operation is not the event's action: restore publishes `updated` with `operation: 'restore'`. */
  operation?: string
  /** `operation: 'migrate'` results (`svc schema apply`, never published): the migration's name. */
  migration?: string
  /** `transitioned` results (published right after the `updated` of the same PUT): which state field moved. */
  transition?: { field: string; from: string | null; to: string }
}

/**
 * Extension point 3 — runs after every successful write, awaited in registration order
 * before the caller gets its answer. A throw is logged and swallowed: it can never fail or
 * undo the write it observes. Best effort (a crash right after the write skips it): what must
 * not be lost is a durable effect (`addDurableEffect`).
 */
export type WriteSubscriber = (result: WriteResult) => void | Promise<void>
