/**
 * Index bounds: per indexed field, an ordered list of disjoint intervals in BSON order (the
 * index's collation for strings). Ranges stay inside their operand's type bracket, as query
 * semantics do: `$gt: 5` is (5, inf.0], `$lt: 'm'` is ["", "m").
 */
import { rankOf, Rank, type StringCompare } from '../bson/bson-order.js'
import { Edge, LOWEST, HIGHEST, compareKeyValues } from '../bson/key-compare.js'
import type { Predicate } from './predicates.js'

export interface Interval {
  lo: unknown
  loInc: boolean
  hi: unknown
  hiInc: boolean
}

export const FULL: Interval = { lo: LOWEST, loInc: true, hi: HIGHEST, hiInc: true }

export function isPoint (iv: Interval, cmp: StringCompare | undefined): boolean {
  return iv.loInc && iv.hiInc && compareKeyValues(iv.lo, iv.hi, cmp) === 0
}

export function isFull (ivs: Interval[]): boolean {
  return ivs.length === 1 && ivs[0].lo === LOWEST && ivs[0].hi === HIGHEST
}

function bracketLow (v: unknown): unknown {
  return rankOf(v) === Rank.Number ? -Infinity : new Edge(rankOf(v), -1)
}

function bracketHigh (v: unknown): unknown {
  return rankOf(v) === Rank.Number ? Infinity : new Edge(rankOf(v), 1)
}

/** Intervals one predicate selects (sorted, disjoint). */
export function predicateIntervals (p: Predicate, cmp: StringCompare | undefined): Interval[] {
  const v = p.values[0]
  switch (p.kind) {
    case 'eq':
    case 'existsFalse':
      return [{ lo: v, loInc: true, hi: v, hiInc: true }]
    case 'in': {
      const sorted = [...p.values].sort((a, b) => compareKeyValues(a, b, cmp))
      const out: Interval[] = []
      for (const x of sorted) {
        if (out.length > 0 && compareKeyValues(out[out.length - 1].lo, x, cmp) === 0) continue
        out.push({ lo: x, loInc: true, hi: x, hiInc: true })
      }
      return out
    }
    case 'gt':
      return [{ lo: v, loInc: false, hi: bracketHigh(v), hiInc: true }]
    case 'gte':
      return [{ lo: v, loInc: true, hi: bracketHigh(v), hiInc: true }]
    case 'lt':
      return [{ lo: bracketLow(v), loInc: true, hi: v, hiInc: false }]
    case 'lte':
      return [{ lo: bracketLow(v), loInc: true, hi: v, hiInc: true }]
    default:
      return [FULL]
  }
}

function maxLow (a: Interval, b: Interval, cmp: StringCompare | undefined): [unknown, boolean] {
  const c = compareKeyValues(a.lo, b.lo, cmp)
  if (c !== 0) return c > 0 ? [a.lo, a.loInc] : [b.lo, b.loInc]
  return [a.lo, a.loInc && b.loInc]
}

function minHigh (a: Interval, b: Interval, cmp: StringCompare | undefined): [unknown, boolean] {
  const c = compareKeyValues(a.hi, b.hi, cmp)
  if (c !== 0) return c < 0 ? [a.hi, a.hiInc] : [b.hi, b.hiInc]
  return [a.hi, a.hiInc && b.hiInc]
}

/** Intersection of two sorted interval lists. */
export function intersect (xs: Interval[], ys: Interval[], cmp: StringCompare | undefined): Interval[] {
  const out: Interval[] = []
  for (const a of xs) {
    for (const b of ys) {
      const [lo, loInc] = maxLow(a, b, cmp)
      const [hi, hiInc] = minHigh(a, b, cmp)
      const c = compareKeyValues(lo, hi, cmp)
      if (c < 0 || (c === 0 && loInc && hiInc)) out.push({ lo, loInc, hi, hiInc })
    }
  }
  return out.sort((a, b) => compareKeyValues(a.lo, b.lo, cmp))
}

/** Does `v` fall inside one of the intervals? (used to filter keys of fields after the seek prefix) */
export function inIntervals (v: unknown, ivs: Interval[], cmp: StringCompare | undefined): boolean {
  for (const iv of ivs) {
    const lo = compareKeyValues(v, iv.lo, cmp)
    if (lo < 0 || (lo === 0 && !iv.loInc)) continue
    const hi = compareKeyValues(v, iv.hi, cmp)
    if (hi < 0 || (hi === 0 && iv.hiInc)) return true
  }
  return false
}
