/** Turns a list call's options into the REST query string (`__page`, `__sort`, JSON operator objects…). */
export interface RawListQuery {
  filter?: Record<string, unknown>
  sort?: string | string[]
  page?: number
  perPage?: number
  include?: readonly string[]
  includeDeleted?: boolean
  q?: string
  /** `__cursor`: continue after the page that answered this `nextCursor` (same filter, sort, perPage; no `page`). */
  cursor?: string
}

function scalar (v: unknown): string {
  return v instanceof Date ? v.toISOString() : String(v)
}

/**
 * A filter value as the REST route reads it: a scalar as text, an operator object as JSON. The
 * server decodes any text starting with `{` as JSON, so such a string is sent as `$in` of itself.
 */
export function filterValue (v: unknown): string {
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) return JSON.stringify(v)
  if (typeof v === 'string' && v.trimStart().startsWith('{')) return JSON.stringify({ $in: [v] })
  return scalar(v)
}

export function listParams (q: RawListQuery): URLSearchParams {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q.filter ?? {})) if (v !== undefined) p.set(k, filterValue(v))
  if (q.q !== undefined) p.set('q', q.q)
  if (q.sort !== undefined) p.set('__sort', Array.isArray(q.sort) ? q.sort.join(',') : q.sort)
  if (q.page !== undefined) p.set('__page', String(q.page))
  if (q.perPage !== undefined) p.set('__perPage', String(q.perPage))
  if (q.include !== undefined && q.include.length > 0) p.set('__include', q.include.join(','))
  if (q.includeDeleted === true) p.set('__includeDeleted', 'true')
  if (q.cursor !== undefined) p.set('__cursor', q.cursor)
  return p
}

/** Aggregation parameters: scalars as text (Dates as ISO 8601), unset ones left out. */
export function paramsOf (params: Record<string, unknown> | undefined): URLSearchParams {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null) p.set(k, scalar(v))
  return p
}
