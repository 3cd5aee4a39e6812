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
  const used = new Set<Predicate>()
  let excludesMissing = false
  const bounds = index.fields.map((field, i) => {
    const preds = analysis.predicates.filter((p) => p.path === field && (!p.hasStrings || collationOk))
    if (preds.some((p) => p.excludesMissing)) excludesMissing = true
    const bounding = preds.filter((p) => p.kind !== 'existsTrue' && !(index.multikey[i] && !p.excludesMissing))
    if (bounding.length === 0) return [FULL]
    if (index.multikey[i]) {
      used.add(bounding[0])
      return predicateIntervals(bounding[0], cmp)
    }
    let ivs: Interval[] | undefined
    for (const p of bounding) {
      used.add(p)
      const next = predicateIntervals(p, cmp)
      ivs = ivs === undefined ? next : intersect(ivs, next, cmp)
    }
    return ivs ?? [FULL]
  })
  const exact = !analysis.residual && analysis.predicates.every((p) => used.has(p) && p.exact)
  const leading = bounds[0].length !== 1 || bounds[0][0] !== FULL
  return { bounds, exact, leading, excludesMissing }
}
