/**
 * The part of a filter an index can answer: field predicates of its top-level conjunction
 * (implicit AND and `$and`), each with the values it selects. Everything else is "residual" and
 * only checked on fetched documents. A predicate is `exact` when index bounds select precisely
 * the documents it matches, so a count can be answered from keys alone.
 */
import type { Document } from 'bson'
import { bsonTypeName, rankOf, Rank } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'

export type PredicateKind = 'eq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'existsFalse' | 'existsTrue'

export interface Predicate {
  path: string
  kind: PredicateKind
  /** operand (eq and ranges) or operands (in) */
  values: unknown[]
  exact: boolean
  /** the operand holds strings, so only an index with the query's collation may bound it */
  hasStrings: boolean
  /** cannot match a document missing the path (needed to use a sparse index) */
  excludesMissing: boolean
}

export interface FilterAnalysis {
  predicates: Predicate[]
  /** some clause is not an indexable predicate ($or, $expr, $regex, $ne, …) */
  residual: boolean
}

const RANGE_OPS: Record<string, PredicateKind> = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' }

export function analyzeFilter (filter: Document | undefined): FilterAnalysis {
  const out: FilterAnalysis = { predicates: [], residual: false }
  if (filter !== undefined) collect(filter, out)
  return out
}

function collect (filter: Document, out: FilterAnalysis): void {
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$comment') continue
    if (k === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainDoc(sub)) collect(sub, out)
      continue
    }
    if (k.startsWith('$') || /(^|\.)\d+(\.|$)/.test(k)) {
      out.residual = true
      continue
    }
    if (isPlainDoc(v) && Object.keys(v).length > 0 && Object.keys(v)[0].startsWith('$')) {
      for (const [op, arg] of Object.entries(v)) {
        const p = operatorPredicate(k, op, arg)
        if (p === undefined) out.residual = true
        else out.predicates.push(p)
      }
      continue
    }
    const p = equality(k, v)
    if (p === undefined) out.residual = true
    else out.predicates.push(p)
  }
}

function operatorPredicate (path: string, op: string, arg: unknown): Predicate | undefined {
  if (op === '$eq') return equality(path, arg)
  if (op === '$in') return inList(path, arg)
  if (op in RANGE_OPS) return range(path, RANGE_OPS[op], arg)
  if (op === '$exists') {
    const present = !(arg === false || arg === 0 || arg === null)
    return present
      ? { path, kind: 'existsTrue', values: [], exact: false, hasStrings: false, excludesMissing: true }
      : { path, kind: 'existsFalse', values: [null], exact: false, hasStrings: false, excludesMissing: false }
  }
  return undefined
}

/** Operands an index point can stand for: scalars and embedded documents (arrays and regexes match more than their key). */
function pointable (v: unknown): boolean {
  const t = bsonTypeName(v)
  if (t === 'array' || t === 'regex' || t === 'minKey' || t === 'maxKey' || t === 'javascript') return false
  if (t === 'object') return isPlainDoc(v) && !Object.keys(v).some((k) => k.startsWith('$'))
  return true
}

function equality (path: string, v: unknown): Predicate | undefined {
  if (v === null || v === undefined) {
    return { path, kind: 'eq', values: [null], exact: false, hasStrings: false, excludesMissing: false }
  }
  if (!pointable(v)) return undefined
  return { path, kind: 'eq', values: [v], exact: true, hasStrings: containsString(v), excludesMissing: true }
}

function inList (path: string, arg: unknown): Predicate | undefined {
  if (!Array.isArray(arg) || !arg.every((x) => x === null || pointable(x))) return undefined
  const hasNull = arg.some((x) => x === null)
  return {
    path,
    kind: 'in',
    values: arg,
    exact: !hasNull,
    hasStrings: arg.some(containsString),
    excludesMissing: !hasNull
  }
}

function range (path: string, kind: PredicateKind, v: unknown): Predicate | undefined {
  const r = rankOf(v)
  // Ranges on null, MinKey/MaxKey, documents and arrays follow special rules: leave them to the filter.
  if (
    v === null ||
    v === undefined ||
    r === Rank.MinKey ||
    r === Rank.MaxKey ||
    r === Rank.Object ||
    r === Rank.Array ||
    r === Rank.Regex
  ) {
    return undefined
  }
  if (typeof v === 'number' && Number.isNaN(v)) return undefined
  return { path, kind, values: [v], exact: true, hasStrings: containsString(v), excludesMissing: true }
}

function containsString (v: unknown): boolean {
  if (typeof v === 'string') return true
  const t = bsonTypeName(v)
  if (t === 'symbol') return true
  if (Array.isArray(v)) return v.some(containsString)
  if (t === 'object' && isPlainDoc(v)) return Object.values(v).some(containsString)
  return false
}
