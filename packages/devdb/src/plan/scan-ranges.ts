/**
 * Turns per-field bounds into B+tree key ranges: the leading fields whose intervals are all
 * points are multiplied out (one seek per combination, so `$in` on any key position is a union
 * of point ranges), the next field's intervals become the ranges, and the remaining fields are
 * checked key by key. Ranges are in tree order (descending fields reversed) and record ids sit
 * at ±Infinity so a range covers every record with those values.
 */
import type { IndexDef, IndexEntry } from '../engine/index-def.js'
import { LOWEST, HIGHEST } from '../bson/key-compare.js'
import { isFull, isPoint, type Interval } from './bounds.js'

/** Most point combinations multiplied out before the rest is left to key filtering. */
const MAX_COMBINATIONS = 4096

export interface KeyRange {
  start: IndexEntry
  end: IndexEntry
}

export interface ScanLayout {
  ranges: KeyRange[]
  /** fields after the seek prefix whose bounds must be checked on each key */
  checked: number[]
  /** leading fields multiplied out as points (their combinations are separate ranges) */
  pointPrefix: number
}

const treeMin = (dir: 1 | -1): unknown => (dir === 1 ? LOWEST : HIGHEST)
const treeMax = (dir: 1 | -1): unknown => (dir === 1 ? HIGHEST : LOWEST)

export function layoutScan (index: IndexDef, bounds: Interval[][]): ScanLayout {
  const cmp = index.collation?.compare
  const n = index.fields.length
  let k = 0
  let combos = 1
  while (
    k < n &&
    bounds[k].every((iv) => isPoint(iv, cmp)) &&
    combos * Math.max(1, bounds[k].length) <= MAX_COMBINATIONS
  ) {
    combos *= bounds[k].length
    k++
  }
  // Point values of each prefix field, in tree order.
  let prefixes: unknown[][] = [[]]
  for (let i = 0; i < k; i++) {
    const pts = bounds[i].map((iv) => iv.lo)
    if (index.dirs[i] === -1) pts.reverse()
    const next: unknown[][] = []
    for (const p of prefixes) for (const v of pts) next.push([...p, v])
    prefixes = next
  }
  const ranges: KeyRange[] = []
  for (const p of prefixes) {
    if (k === n) {
      ranges.push({ start: [...p, -Infinity], end: [...p, Infinity] })
      continue
    }
    const dir = index.dirs[k]
    const ivs = dir === 1 ? bounds[k] : [...bounds[k]].reverse()
    for (const iv of ivs) ranges.push(rangeFor(index, p, k, iv))
  }
  const checked: number[] = []
  for (let i = k + 1; i < n; i++) if (!isFull(bounds[i])) checked.push(i)
  return { ranges, checked, pointPrefix: k }
}

function rangeFor (index: IndexDef, prefix: unknown[], k: number, iv: Interval): KeyRange {
  const dir = index.dirs[k]
  const [first, firstInc, last, lastInc] =
    dir === 1 ? [iv.lo, iv.loInc, iv.hi, iv.hiInc] : [iv.hi, iv.hiInc, iv.lo, iv.loInc]
  const rest = index.dirs.slice(k + 1)
  // Inclusive start: before every key with `first`; exclusive start: after all of them (and the end alike).
  const start = [
    ...prefix,
    first,
    ...rest.map((d) => (firstInc ? treeMin(d) : treeMax(d))),
    firstInc ? -Infinity : Infinity
  ]
  const end = [...prefix, last, ...rest.map((d) => (lastInc ? treeMax(d) : treeMin(d))), lastInc ? Infinity : -Infinity]
  return { start, end }
}
