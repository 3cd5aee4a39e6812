/**
 * Every bound a caller meets, defined once. REST, GraphQL and MCP read these (through the
 * service, or to describe them in their schemas); no surface keeps a copy of its own.
 */

/** Largest page any list answers (spec: page size maximum 200); `limit` and `__perPage` alike. */
export const MAX_PAGE_SIZE = 200
/** Page size when the host sets none (`PAGE_SIZE`). */
export const DEFAULT_PAGE_SIZE = 20
/** Most values one `$in` may list. */
export const MAX_IN_VALUES = 1000
/** Longest `$regex` pattern; longer ones are refused before any parsing. */
export const MAX_REGEX_LENGTH = 256
/** Longest text search (`q`); longer ones are refused rather than handed to the text parser. */
export const MAX_Q_LENGTH = 512
/**
 * Most related records one relation may load for one page (an `__include`, a GraphQL relation
 * field, an MCP relation tool); more is 400, never a silently short array. It is what a relation
 * list can hold, so the cost model prices it at this, not at a page size.
 */
export const MAX_RELATED = 5000
/** Most records one bulk write (create, update or delete) may touch; more is refused, never half done. */
export const MAX_BULK_RECORDS = 1000
/** Most rows one declared aggregation may answer. */
export const MAX_AGGREGATION_ROWS = 10_000
/** Longest string parameter of a declared aggregation. */
export const MAX_AGGREGATION_STRING_PARAM = 1000
/** Default time bound (ms) of every query a caller drives (`queryTimeoutMs`, `QUERY_TIMEOUT_MS`). */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000
/** Largest `queryTimeoutMs` a host may configure. */
export const MAX_QUERY_TIMEOUT_MS = 10 * 60 * 1000
/**
 * Default largest price of one request (a REST call, an MCP call, a GraphQL document) in values
 * it can return (see the service's cost model): room for a full page with a hasMany include.
 */
export const DEFAULT_MAX_REQUEST_COST = 250_000
/** Default price one tenant may be charged per minute. */
export const DEFAULT_TENANT_COST_PER_MINUTE = 5_000_000
/** Default time (ms) a whole request — headers and body — may take to arrive; then 408 REQUEST_TIMEOUT. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** Time (ms) a request's headers may take to arrive (at most the request timeout). */
export const HEADERS_TIMEOUT_MS = 10_000
/** The only filter operators a caller may use; anything else is refused before the database. */
export const FILTER_OPERATORS = ['$gt', '$gte', '$lt', '$lte', '$ne', '$in', '$regex', '$options'] as const
export type FilterOperator = (typeof FILTER_OPERATORS)[number]
/** Flags `$options` may hold. */
export const REGEX_OPTIONS = 'imsx'
