// A table's state lives in the page URL as the REST list query itself (`stage=won&__sort=amount:desc`),
// so a view can be bookmarked and shared, and the request is exactly what the URL says.
import { listParams, type RawListQuery } from '@svc/client'
import { itemKindOf, kindOf } from './fields.js'
import type { Field } from './describe.js'

export function queryFromSearch (search: string): RawListQuery {
  const p = new URLSearchParams(search)
  const filter: Record<string, unknown> = {}
  const q: RawListQuery = { filter }
  for (const [k, v] of p) {
    if (k === '__sort') q.sort = v
    else if (k === '__page') q.page = Math.max(1, Number.parseInt(v, 10) || 1)
    else if (k === '__perPage') q.perPage = Number.parseInt(v, 10) || 20
    else if (k === '__include') q.include = v.split(',').filter(Boolean)
    else if (k === '__includeDeleted') q.includeDeleted = v === 'true'
    else if (k === '__cursor') q.cursor = v
    else if (k === 'q') q.q = v
    else if (!k.startsWith('__')) filter[k] = decodeFilter(v)
  }
  return q
}

function decodeFilter (v: string): unknown {
  if (!v.trimStart().startsWith('{')) return v
  try {
    return JSON.parse(v) as unknown
  } catch {
    return v
  }
}

export function searchFromQuery (q: RawListQuery): string {
  const s = listParams(q).toString()
  return s === '' ? '' : `?${s}`
}

export type Op = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains' | 'regex'

export interface FilterRow {
  path: string
  op: Op
  value: string
}

export const OP_LABELS: Record<Op, string> = {
  eq: 'is',
  ne: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  contains: 'contains',
  regex: 'matches pattern'
}

export function opsFor (f: Field): Op[] {
  const k = kindOf(f) === 'array' ? itemKindOf(f) : kindOf(f)
  if (f.enum !== undefined) return ['eq', 'ne', 'in']
  if (k === 'boolean') return ['eq', 'ne']
  if (k === 'number' || k === 'date') {
    return ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', ...(k === 'number' ? ['in' as Op] : [])]
  }
  return ['contains', 'eq', 'ne', 'in', 'regex', 'gt', 'lt']
}

function escapeRegex (s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function unescapeRegex (s: string): string | null {
  const plain = s.replace(/\\([.*+?^${}()|[\]\\])/g, '$1')
  return escapeRegex(plain) === s ? plain : null
}

/** The rows a filter object reads as (one per operator). */
export function rowsOf (filter: Record<string, unknown>): FilterRow[] {
  const rows: FilterRow[] = []
  for (const [path, v] of Object.entries(filter)) {
    if (v === null || typeof v !== 'object') {
      rows.push({ path, op: 'eq', value: String(v) })
      continue
    }
    const ops = v as Record<string, unknown>
    for (const [op, val] of Object.entries(ops)) {
      if (op === '$options') continue
      if (op === '$regex') {
        const plain = ops.$options === 'i' ? unescapeRegex(String(val)) : null
        rows.push(plain !== null ? { path, op: 'contains', value: plain } : { path, op: 'regex', value: String(val) })
      } else if (op === '$in') rows.push({ path, op: 'in', value: Array.isArray(val) ? val.join(', ') : String(val) })
      else rows.push({ path, op: op.slice(1) as Op, value: String(val) })
    }
  }
  return rows
}

/** Rows back to a filter object; several rows on one field merge into one operator object. */
export function filterOf (rows: FilterRow[], fieldOf: (path: string) => Field | undefined): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const r of rows) {
    if (r.path === '' || (r.value.trim() === '' && r.op !== 'eq')) continue
    const f = fieldOf(r.path)
    const k = f === undefined ? 'string' : kindOf(f) === 'array' ? itemKindOf(f) : kindOf(f)
    const typed = (s: string): unknown =>
      k === 'number' && s.trim() !== '' && !Number.isNaN(Number(s)) ? Number(s) : k === 'boolean' ? s === 'true' : s
    const ops = (out[r.path] ??= {})
    if (r.op === 'eq') ops.$eq = typed(r.value)
    else if (r.op === 'in') {
      ops.$in = r.value
        .split(',')
        .map((s) => typed(s.trim()))
        .filter((s) => s !== '')
    } else if (r.op === 'contains') {
      ops.$regex = escapeRegex(r.value)
      ops.$options = 'i'
    } else if (r.op === 'regex') ops.$regex = r.value
    else ops[`$${r.op}`] = typed(r.value)
  }
  const filter: Record<string, unknown> = {}
  for (const [path, ops] of Object.entries(out)) {
    const { $eq, ...rest } = ops
    if (Object.keys(rest).length === 0) filter[path] = $eq
    // Equality next to other operators on one field: the API has one parameter per field.
    else {
      filter[path] = $eq === undefined ? rest : { ...rest, $in: [...((rest.$in as unknown[] | undefined) ?? []), $eq] }
    }
  }
  return filter
}
