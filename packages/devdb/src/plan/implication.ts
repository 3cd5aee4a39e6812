/**
 * When may a partial index answer a query? Only when every document the query can match is in
 * the index: each clause of the partialFilterExpression must be implied by a query predicate
 * (as mongod checks, for equality, ranges, `$in` and `$exists`). Anything else keeps the index
 * out of the plan unless it is hinted.
 */
import type { Document } from 'bson'
import { compareValues, rankOf } from '../bson/bson-order.js'
import { analyzeFilter, type FilterAnalysis, type Predicate } from './predicates.js'

export function impliesPartialFilter (query: FilterAnalysis, partialFilter: Document): boolean {
  const partial = analyzeFilter(partialFilter)
  if (partial.residual) return false
  return partial.predicates.every((pp) => query.predicates.some((qp) => qp.path === pp.path && implies(qp, pp)))
}

function sameBracketCompare (a: unknown, b: unknown): number | undefined {
  if (rankOf(a) !== rankOf(b)) return undefined
  return compareValues(a, b)
}

/** Does every value satisfying `q` satisfy `p`? */
function implies (q: Predicate, p: Predicate): boolean {
  if (p.kind === 'existsTrue') return q.excludesMissing
  const qv = q.kind === 'in' ? q.values : q.kind === 'eq' ? q.values : undefined
  if (qv !== undefined && q.exact) return qv.every((v) => satisfies(v, p))
  if (q.kind === p.kind && (q.kind === 'gt' || q.kind === 'gte' || q.kind === 'lt' || q.kind === 'lte')) {
    const c = sameBracketCompare(q.values[0], p.values[0])
    if (c === undefined) return false
    return q.kind === 'gt' || q.kind === 'gte' ? c >= 0 : c <= 0
  }
  if ((q.kind === 'gt' && p.kind === 'gte') || (q.kind === 'lt' && p.kind === 'lte')) {
    const c = sameBracketCompare(q.values[0], p.values[0])
    return c !== undefined && (q.kind === 'gt' ? c >= 0 : c <= 0)
  }
  if ((q.kind === 'gte' && p.kind === 'gt') || (q.kind === 'lte' && p.kind === 'lt')) {
    const c = sameBracketCompare(q.values[0], p.values[0])
    return c !== undefined && (q.kind === 'gte' ? c > 0 : c < 0)
  }
  return false
}

function satisfies (v: unknown, p: Predicate): boolean {
  if (p.kind === 'eq' || p.kind === 'in') return p.values.some((x) => sameBracketCompare(v, x) === 0)
  const c = sameBracketCompare(v, p.values[0])
  if (c === undefined) return false
  switch (p.kind) {
    case 'gt':
      return c > 0
    case 'gte':
      return c >= 0
    case 'lt':
      return c < 0
    case 'lte':
      return c <= 0
  }
  return false
}
