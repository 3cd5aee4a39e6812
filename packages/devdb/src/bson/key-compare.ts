/**
 * Ordering of index keys: BSON order (with the index's collation for strings) extended by two
 * kinds of values that never appear in documents — the key of an empty array (BSON undefined,
 * between MinKey and null, as mongod indexes `[]`) and type-bracket edges, which sort just before
 * or just after every value of one type and let a bound say "every string" or "every number".
 */
import { compareValues, rankOf, Rank, type StringCompare } from './bson-order.js'

export class Edge {
  constructor (
    readonly rank: number,
    readonly side: -1 | 1
  ) {}
}

/** (A constructor check: `instanceof` is several times slower here, and this runs in every key comparison.) */
export function isEdge (v: unknown): v is Edge {
  return typeof v === 'object' && v !== null && v.constructor === Edge
}

/** Below / above every BSON value (MinKey and MaxKey included). */
export const LOWEST = new Edge(-1, -1)
export const HIGHEST = new Edge(1000, 1)

/** Index key of an empty array. */
export const EMPTY_ARRAY_KEY = Symbol('undefined')
const EMPTY_ARRAY_RANK = Rank.EmptyArray

/** Type rank of a key value; the common types first, by cheap checks (this runs in every seek and range end). */
function keyRank (v: unknown): number {
  switch (typeof v) {
    case 'string':
      return Rank.String
    case 'number':
    case 'bigint':
      return Rank.Number
    case 'boolean':
      return Rank.Bool
    case 'symbol':
      return EMPTY_ARRAY_RANK
  }
  if (v === null || v === undefined) return Rank.Null
  const ctor = (v as { constructor?: unknown }).constructor
  if (ctor === Edge) return (v as Edge).rank
  if (ctor === Date) return Rank.Date
  return rankOf(v)
}

export function compareKeyValues (a: unknown, b: unknown, strCmp?: StringCompare): number {
  if (typeof a === 'string' && typeof b === 'string') {
    return strCmp !== undefined ? strCmp(a, b) : a < b ? -1 : a > b ? 1 : 0
  }
  const ea = isEdge(a)
  const eb = isEdge(b)
  if (ea || eb || a === EMPTY_ARRAY_KEY || b === EMPTY_ARRAY_KEY) {
    const ra = keyRank(a)
    const rb = keyRank(b)
    if (ra !== rb) return ra < rb ? -1 : 1
    const sa = ea ? a.side : 0
    const sb = eb ? b.side : 0
    return sa < sb ? -1 : sa > sb ? 1 : 0
  }
  return compareValues(a, b, strCmp)
}

/** Comparator of B+tree entries `[v0, …, vn-1, recordId]` for an index with these directions. */
export function entryComparator (dirs: Array<1 | -1>, strCmp?: StringCompare): (x: unknown[], y: unknown[]) => number {
  const n = dirs.length
  return (x, y) => {
    for (let i = 0; i < n; i++) {
      const c = compareKeyValues(x[i], y[i], strCmp)
      if (c !== 0) return dirs[i] === 1 ? c : -c
    }
    const rx = x[n] as number
    const ry = y[n] as number
    return rx < ry ? -1 : rx > ry ? 1 : 0
  }
}
