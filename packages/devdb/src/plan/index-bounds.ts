/**
 * Bounds one index can take from a query, and whether they capture the whole filter: a
 * predicate bounds an index field when its operand can be compared under the index's collation
 * (strings need the query's collation), ranges on a multikey field are never intersected (each
 * element may satisfy a different predicate), and null-ish predicates on multikey fields bound
 * nothing.
 */
import type { Collation } from '../collation/collation.js'
import { sameCollation } from '../collation/collation.js'
import type { IndexDef } from '../engine/index-def.js'
import { FULL, intersect, predicateIntervals, type Interval } from './bounds.js'
import type { FilterAnalysis, Predicate } from './predicates.js'

export interface IndexBounds {
  bounds: Interval[][]
  /** the bounds select exactly the documents the whole filter matches (no FETCH filter needed) */
  exact: boolean
  /** some predicate bounds the index's first field */
  leading: boolean
  /** a predicate on an indexed field excludes documents missing it (sparse indexes need one) */
  excludesMissing: boolean
}

export function boundsFor (
  index: IndexDef,
  analysis: FilterAnalysis,
  queryCollation: Collation | undefined
): IndexBounds {
  const cmp = index.collation?.compare
  const collationOk = sameCollation(index.collation, queryCollation)
  /** predicates whose bounds on their index field select exactly what they match */
  const exactly = new Set<Predicate>()
  let excludesMissing = false
  const bounds = index.fields.map((field, i) => {
    const preds = analysis.predicates.filter((p) => p.path === field && (!p.hasStrings || collationOk))
    if (preds.some((p) => p.excludesMissing)) excludesMissing = true
    const bounding = preds.filter((p) => p.kind !== 'existsTrue' && !(index.multikey[i] && !p.excludesMissing))
    if (bounding.length === 0) return [FULL]
    if (index.multikey[i]) {
      if (bounding[0].exact) exactly.add(bounding[0])
      return predicateIntervals(bounding[0], cmp)
    }
    let ivs: Interval[] | undefined
    for (const p of bounding) {
      if (p.exact || nullPointIsExact(index, i, p)) exactly.add(p)
      const next = predicateIntervals(p, cmp)
      ivs = ivs === undefined ? next : intersect(ivs, next, cmp)
    }
    return ivs ?? [FULL]
  })
  const exact = !analysis.residual && analysis.predicates.every((p) => exactly.has(p))
  const leading = bounds[0].length !== 1 || bounds[0][0] !== FULL
  return { bounds, exact, leading, excludesMissing }
}

/**
 * `field: null` matches a null or missing field; on a top-level field that no document of a
 * non-sparse index holds an array in, those are exactly the documents keyed null (a missing field
 * is keyed null too), so the null point needs no fetch — a soft-delete scope's `deletedAt: null`
 * is counted from keys. Dotted paths are left to the filter (a scalar on the way also keys null).
 */
function nullPointIsExact (index: IndexDef, i: number, p: Predicate): boolean {
  return p.kind === 'eq' && p.values[0] === null && !p.path.includes('.') && !index.multikey[i] && !index.sparse
}
