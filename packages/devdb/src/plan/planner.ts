/**
 * The query planner, in the spirit of mongod's: every index whose leading field a predicate
 * bounds (or that provides the requested sort) yields a candidate plan; a hint forces one; with
 * no candidate the plan is a collection scan. Plans are stage trees (see stage.ts); the
 * multi-planner picks among several by a trial run.
 */
import type { Document } from 'bson'
import { sameCollation } from '../collation/collation.js'
import type { IndexDef } from '../engine/index-def.js'
import type { SortKey } from '../query/sort.js'
import { analyzeFilter, type FilterAnalysis } from './predicates.js'
import { boundsFor, type IndexBounds } from './index-bounds.js'
import { impliesPartialFilter } from './implication.js'
import { sortProvision, type SortProvision } from './sort-provision.js'
import { layoutScan } from './scan-ranges.js'
import { CollScan, IndexScan } from './scan-stages.js'
import { Fetch, Limit, Skip } from './row-stages.js'
import { Sort, SortMerge } from './sort-stages.js'
import { Count, CountScan } from './count-stages.js'
import type { ExecContext, Stage } from './stage.js'
import type { QuerySpec } from './query-spec.js'

export type { QuerySpec } from './query-spec.js'

export interface Candidate {
  root: Stage
  rank: number
  index?: IndexDef
}

export function planQuery (ctx: ExecContext, q: QuerySpec): Candidate[] {
  const natural = q.sort.find((k) => k.meta === 'natural')
  if (natural !== undefined) {
    return [{ root: finish(ctx, q, new CollScan(ctx, q.matcher, q.filter, natural.dir), false), rank: 0 }]
  }
  if (q.hint !== undefined && 'index' in q.hint) {
    const p = indexCandidate(ctx, q, analyzeFilter(q.filter), q.hint.index, true)
    if (p !== undefined) return [p]
  }
  if (q.hint !== undefined && 'natural' in q.hint) {
    return [{ root: finish(ctx, q, new CollScan(ctx, q.matcher, q.filter, q.hint.natural), false), rank: 0 }]
  }
  const out: Candidate[] = []
  if (!q.text) {
    const analysis = analyzeFilter(q.filter)
    for (const ix of ctx.coll.indexes) {
      const c = indexCandidate(ctx, q, analysis, ix, false)
      if (c !== undefined) out.push(c)
    }
  }
  if (out.length === 0) return [{ root: finish(ctx, q, new CollScan(ctx, q.matcher, q.filter, 1), false), rank: 0 }]
  return out.sort((a, b) => b.rank - a.rank)
}

function indexCandidate (
  ctx: ExecContext,
  q: QuerySpec,
  analysis: FilterAnalysis,
  ix: IndexDef,
  forced: boolean
): Candidate | undefined {
  if (ix.isText) return undefined
  if (!forced) {
    if (ix.spec.hidden === true) return undefined
    if (ix.partial !== undefined && !impliesPartialFilter(analysis, ix.spec.partialFilterExpression as Document)) {
      return undefined
    }
  }
  const b = boundsFor(ix, analysis, q.collation)
  if (ix.sparse && !forced && !b.excludesMissing) return undefined
  const layout = layoutScan(ix, b.bounds)
  const provision =
    q.count === true
      ? undefined
      : sortProvision(ix, b.bounds, q.sort, layout.pointPrefix, sameCollation(ix.collation, q.collation))
  if (!forced && !b.leading && (provision === undefined || q.sort.length === 0)) return undefined
  const rank =
    (ix.unique && b.exact && layout.pointPrefix === ix.fields.length ? 1000 : 0) +
    10 * layout.pointPrefix +
    (provision !== undefined ? 5 : 0) +
    (b.leading ? 1 : 0)
  if (q.count === true) return { root: countPlan(ctx, q, ix, b, layout.ranges.length), rank, index: ix }
  const scan =
    provision?.merge === true
      ? mergeScans(ctx, ix, b, q.sort, provision)
      : new IndexScan(ctx, ix, b.bounds, provision?.direction ?? 1)
  const fetch = new Fetch(ctx, scan, b.exact ? undefined : q.matcher, b.exact ? undefined : q.filter)
  return { root: finish(ctx, q, fetch, provision !== undefined), rank, index: ix }
}

/**
 * A filter whose top-level `_id` equals one plain value selects at most one document through the
 * unique `_id` index, so no other plan can do better: mongod's IDHACK, widened to filters with
 * further predicates (checked on the fetched document). Planning, the plan cache and a trial run
 * are skipped; undefined when the query is not such a lookup (a hint, a sort by `$natural`, text,
 * a count, an operator or a regex as the value, a string under another collation than the index's).
 */
export function idPointPlan (ctx: ExecContext, q: QuerySpec): Candidate | undefined {
  if (q.hint !== undefined || q.text || q.count === true || q.filter === undefined) return undefined
  if (!Object.hasOwn(q.filter, '_id') || q.sort.some((k) => k.meta !== undefined)) return undefined
  const v = q.filter._id
  if (!pointValue(v)) return undefined
  const ix = ctx.coll.findIndex('_id_')
  if (ix === undefined || !ix.unique || ix.fields.length !== 1 || ix.fields[0] !== '_id') return undefined
  if (typeof v === 'string' && !sameCollation(ix.collation, q.collation)) return undefined
  const scan = new IndexScan(ctx, ix, [[{ lo: v, loInc: true, hi: v, hiInc: true }]], 1)
  return { root: finish(ctx, q, new Fetch(ctx, scan, q.matcher, q.filter), false), rank: 1000, index: ix }
}

/** A value `_id: v` compares with by plain equality: no operator document, array, regex or null (which also matches a missing field). */
function pointValue (v: unknown): boolean {
  if (typeof v === 'string') return true
  if (typeof v === 'number') return !Number.isNaN(v)
  if (v instanceof Date) return !Number.isNaN(v.getTime())
  const type = (v as { _bsontype?: string } | null)?._bsontype
  return type === 'ObjectId' || type === 'Long' || type === 'Int32' || type === 'Double'
}

/** The plan of one index for a query (a plan-cache hit), or undefined when that index no longer applies. */
export function indexPlan (ctx: ExecContext, q: QuerySpec, indexName: string): Candidate | undefined {
  const ix = ctx.coll.findIndex(indexName)
  return ix === undefined ? undefined : indexCandidate(ctx, q, analyzeFilter(q.filter), ix, false)
}

function mergeScans (ctx: ExecContext, ix: IndexDef, b: IndexBounds, sort: SortKey[], provision: SortProvision): Stage {
  const { pointPrefix } = layoutScan(ix, b.bounds)
  let combos: unknown[][] = [[]]
  for (let i = 0; i < pointPrefix; i++) {
    const next: unknown[][] = []
    for (const c of combos) for (const iv of b.bounds[i]) next.push([...c, iv.lo])
    combos = next
  }
  const scans = combos.map(
    (c) =>
      new IndexScan(
        ctx,
        ix,
        b.bounds.map((ivs, i) => (i < pointPrefix ? [{ lo: c[i], loInc: true, hi: c[i], hiInc: true }] : ivs)),
        provision.direction
      )
  )
  const pos = new Map(ix.fields.map((f, i) => [f, i]))
  const keys = sort.filter((k) => pos.has(k.path))
  const pattern: Document = {}
  for (const k of sort) pattern[k.path] = k.dir
  return new SortMerge(
    scans,
    pattern,
    keys.map((k) => pos.get(k.path) as number),
    keys.map((k) => k.dir),
    ix.collation?.compare
  )
}

function countPlan (ctx: ExecContext, q: QuerySpec, ix: IndexDef, b: IndexBounds, ranges: number): Stage {
  let child: Stage
  const scan = new IndexScan(ctx, ix, b.bounds, 1)
  // COUNT_SCAN counts one key range as is: fields checked key by key (a bound after an unbounded field) need the scan.
  if (b.exact && ranges === 1 && scan.layout.checked.length === 0) child = new CountScan(ctx, ix, scan.layout.ranges[0])
  else if (b.exact) child = scan
  else child = new Fetch(ctx, scan, q.matcher, q.filter)
  return new Count(child, q.skip, q.limit)
}

/** Sort (unless provided), then skip and limit, as mongod stacks them. */
function finish (ctx: ExecContext, q: QuerySpec, input: Stage, sortProvided: boolean): Stage {
  if (q.count === true) return new Count(input, q.skip, q.limit)
  let root = input
  const sortKeys = q.sort.filter((k) => k.meta !== 'natural')
  if (sortKeys.length > 0 && !sortProvided) {
    root = new Sort(ctx, root, {
      keys: sortKeys,
      limit: q.limit > 0 ? q.skip + q.limit : 0,
      memLimit: q.sortMemoryLimit,
      score: q.score,
      strCmp: q.collation?.compare,
      errorContext: q.errorContext
    })
    if (q.skip > 0) root = new Skip(root, q.skip)
    return root
  }
  if (q.skip > 0) root = new Skip(root, q.skip)
  if (q.limit > 0) root = new Limit(root, q.limit)
  return root
}
