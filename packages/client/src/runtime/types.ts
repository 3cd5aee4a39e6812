/**
 * The generic shapes a generated client is written in: filters with the operators each field
 * type allows, sort keys, list pages, files, history. Dates travel as ISO 8601 strings; inputs
 * also take `Date` objects.
 */

export type DateInput = string | Date

/** Operators of a free-text String field (and of array-of-String elements). */
export interface StringOps {
  $gt?: string
  $gte?: string
  $lt?: string
  $lte?: string
  $ne?: string
  $in?: string[]
  /** At most 256 characters, no nested quantifiers. */
  $regex?: string
  /** Only with `$regex`: any of `i m s x`. */
  $options?: string
}
/** Operators of an enum String field: exact values are checked against the enum. */
export interface EnumOps<E extends string> {
  $ne?: E
  $in?: E[]
  $gt?: string
  $gte?: string
  $lt?: string
  $lte?: string
  $regex?: string
  $options?: string
}
export interface NumberOps {
  $gt?: number
  $gte?: number
  $lt?: number
  $lte?: number
  $ne?: number
  $in?: number[]
}
export interface DateOps {
  $gt?: DateInput
  $gte?: DateInput
  $lt?: DateInput
  $lte?: DateInput
  $ne?: DateInput
  $in?: DateInput[]
}
export interface BooleanOps {
  $ne?: boolean
  $in?: boolean[]
}
/** `_id`: 24 hex characters; ordered like the ObjectIds they are. */
export interface IdOps {
  $gt?: string
  $gte?: string
  $lt?: string
  $lte?: string
  $ne?: string
  $in?: string[]
}

export type StringFilter = string | StringOps
export type EnumFilter<E extends string> = E | EnumOps<E>
export type NumberFilter = number | NumberOps
export type DateFilter = DateInput | DateOps
export type BooleanFilter = boolean | BooleanOps
export type IdFilter = string | IdOps

/** The filters every schema has: its stamped fields. */
export interface SystemFilter {
  _id?: IdFilter
  userId?: StringFilter
  accountId?: StringFilter
  createdAt?: DateFilter
  updatedAt?: DateFilter
}

/** `field`, `field:asc` or `field:desc`; `_id` always breaks ties on the server. */
export type SortSpec<K extends string> = K | `${K}:asc` | `${K}:desc`

/** Options every call takes. */
export interface CallOptions {
  signal?: AbortSignal
}

export interface ListQuery<F, S extends string, R extends string> extends CallOptions {
  filter?: F
  sort?: SortSpec<S> | Array<SortSpec<S>>
  page?: number
  /** At most 200; the server's `PAGE_SIZE` when absent. */
  perPage?: number
  include?: readonly R[]
  /** Soft-deleted records too (they carry `deletedAt`). */
  includeDeleted?: boolean
  /** A page's `nextCursor`: the next page of the same query (not with `page`). */
  cursor?: string
}

export interface GetOptions<R extends string> extends CallOptions {
  include?: readonly R[]
  includeDeleted?: boolean
}

export interface CreateOptions extends CallOptions {
  /**
   * 1–255 printable ASCII characters, or `true` for a random UUID: the create may then be retried
   * (the service answers a replay with the first record instead of creating a second one).
   */
  idempotencyKey?: string | true
}

export interface PageOptions extends CallOptions {
  page?: number
  perPage?: number
}

/** The list envelope of every list route. */
export interface ListPage<T> {
  results: T[]
  totalResults: number
  page: number
  perPage: number
  totalPages: number
  nextPage: number | null
  prevPage: number | null
  /** Continues after this page (`list({ ..., cursor })`); null on the last page. Absent from services without cursors. */
  nextCursor?: string | null
}

/** A File field's value and the answer of an upload. */
export interface FileMeta {
  key: string
  size: number
  contentType: string
  originalName: string
  uploadedAt: string
  /** Public files: their stable URL (uploads and reads); private files: only on fetch, signed. */
  url?: string
}

export type FileMetaWithUrl = FileMeta & { url: string }

export interface UploadOptions extends CallOptions {
  /** The file name sent with the part (a `File` brings its own); the stored key never uses it. */
  filename?: string
}

export interface AuditActor {
  kind: 'user' | 'client' | 'system'
  userId: string | null
  email?: string
  roles: string[]
  clientId?: string
}

/** One row of `history(id)`, newest first. */
export interface HistoryEntry<T> {
  _id: string
  action: 'create' | 'update' | 'delete' | 'restore' | 'transition' | (string & {})
  recordId: string
  userId: string | null
  actor: AuditActor
  before: Partial<T> | null
  after: Partial<T> | null
  diff: Record<string, { from: unknown; to: unknown }>
  at: string
}

/** The record plus the relations named in `include`. */
export type WithIncluded<T, Rel, K extends PropertyKey> = [K] extends [never] ? T : T & { [P in K & keyof Rel]: Rel[P] }

/** The shape a string literal union collapses to when nothing narrows it. */
export type Awaitable<T> = T | Promise<T>

export interface RelationOptions extends CallOptions {
  /** Read the owner even when it is soft-deleted. */
  includeDeleted?: boolean
}
