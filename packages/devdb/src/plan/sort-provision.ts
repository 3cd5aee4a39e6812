/**
 * Whether an index scan returns rows in the requested sort order: after dropping fields pinned
 * to a single value, the sort must be a prefix of the index's fields, all in the index's
 * direction or all reversed (then the scan walks backward). When leading fields hold several
 * points (`$in`), each point's rows are sorted on the fields after them: a SORT_MERGE of one
 * scan per point keeps the order without a blocking sort.
 */
import type { IndexDef } from '../engine/index-def.js'
import type { SortKey } from '../query/sort.js'
import { isPoint, type Interval } from './bounds.js'

export interface SortProvision {
  direction: 1 | -1
  /** merge one scan per leading point combination */
  merge: boolean
}

export function sortProvision (
  index: IndexDef,
  bounds: Interval[][],
  sort: SortKey[],
  pointPrefix: number,
  collationOk: boolean
): SortProvision | undefined {
  if (sort.length === 0) return { direction: 1, merge: false }
  if (!collationOk || sort.some((k) => k.meta !== undefined)) return undefined
  const cmp = index.collation?.compare
  const single = (i: number): boolean => bounds[i].length === 1 && isPoint(bounds[i][0], cmp) && !index.multikey[i]
  const pos = new Map(index.fields.map((f, i) => [f, i]))
  const wanted = sort.filter((k) => !(pos.has(k.path) && single(pos.get(k.path) as number)))
  if (wanted.length === 0) return { direction: 1, merge: false }
  const order = index.fields.map((f, i) => ({ f, i, dir: index.dirs[i] })).filter((x) => !single(x.i))
  const direct = matchPrefix(wanted, order, index)
  if (direct !== undefined) return { direction: direct, merge: false }
  const merged = matchPrefix(
    wanted,
    order.filter((x) => x.i >= pointPrefix),
    index
  )
  return merged !== undefined ? { direction: merged, merge: true } : undefined
}

function matchPrefix (
  wanted: SortKey[],
  order: Array<{ f: string; i: number; dir: 1 | -1 }>,
  index: IndexDef
): 1 | -1 | undefined {
  if (wanted.length > order.length) return undefined
  let direction: 1 | -1 | undefined
  for (let j = 0; j < wanted.length; j++) {
    const o = order[j]
    if (o.f !== wanted[j].path || index.multikey[o.i]) return undefined
    const d = wanted[j].dir === o.dir ? 1 : -1
    if (direction === undefined) direction = d
    else if (direction !== d) return undefined
  }
  return direction
}
