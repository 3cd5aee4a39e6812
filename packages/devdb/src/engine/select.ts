/**
 * Document selection shared by find, count, distinct, aggregate, update, delete and
 * findAndModify: validation, collation, `$text` scoring, then the query planner (src/plan).
 */
import type { Document } from 'bson'
import type { Options } from 'mingo/types'
import { CommandError, Codes, badValue } from '../errors.js'
import type { Collection } from './collection.js'
import type { Collation } from '../collation/collation.js'
import { TextIndexDef } from './index-build.js'
import { parseTextQuery, textScore } from '../text/index.js'
import { compileFilter } from '../query/options.js'
import { validateFilter } from '../query/validate.js'
import type { SortKey } from '../query/sort.js'
import { NO_DEADLINE, type Deadline } from './deadline.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { idPointPlan, indexPlan, planQuery, type QuerySpec } from '../plan/planner.js'
import { CachedPlanTooSlow, PlanExecutor } from '../plan/executor.js'
import { queryShape } from '../plan/plan-cache.js'

export interface Selection {
  docs: Document[]
  /** text score by document (only for $text queries) */
  score?: (d: Document) => number
}

export interface SelectOptions {
  sort?: SortKey[]
  skip?: number
  limit?: number // 0 / undefined = no limit
  deadline?: Deadline
  /** the command's `hint` argument (validated against the collection's indexes) */
  hint?: unknown
  /** bytes a blocking sort may hold (undefined: no limit) */
  sortMemoryLimit?: number
  /** "Executor error during find command" and the like, for errors raised while running */
  errorContext?: string
  count?: boolean
  /** consult and fill the plan cache (explain plans afresh, to show the rejected plans) */
  planCache?: boolean
}

export interface PreparedFilter {
  filter: Document | undefined
  matcher: (d: Document) => boolean
  score?: (d: Document) => number
  collation?: Collation
}

export function textIndexOf (coll: Collection | undefined): TextIndexDef | undefined {
  return coll?.indexes.find((ix): ix is TextIndexDef => ix instanceof TextIndexDef)
}

/** Validates and compiles a filter under a collation; `$text` becomes a scoring pre-filter. */
export function prepareFilter (
  coll: Collection | undefined,
  filter: Document | undefined,
  variables?: Document,
  collation?: Collation
): PreparedFilter {
  const extra: Partial<Options> = {
    ...(variables !== undefined ? { variables } : {}),
    // Our query operators read the collation back from the options (see collatorOf).
    ...(collation !== undefined ? { collation: collation as never } : {})
  }
  if (filter === undefined || filter === null) return { filter: undefined, matcher: () => true, collation }
  const info = validateFilter(filter)
  if (!info.hasText) return { filter, matcher: compileFilter(filter, extra), collation }
  const ix = textIndexOf(coll)
  if (ix === undefined) {
    throw new CommandError(Codes.IndexNotFound, 'IndexNotFound', 'text index required for $text query')
  }
  const query = parseTextQuery(filter.$text as Document, ix.text)
  const rest: Document = { ...filter }
  delete rest.$text
  const restMatcher = compileFilter(rest, extra)
  const scores = new WeakMap<Document, number>()
  const scoreOf = (d: Document): number => {
    let s = scores.get(d)
    if (s === undefined) {
      s = textScore(d, ix.text, query)
      scores.set(d, s)
    }
    return s
  }
  return { filter, matcher: (d) => scoreOf(d) > 0 && restMatcher(d), score: scoreOf, collation }
}

/** Resolves a `hint` (index name, key pattern or `$natural`) as mongod does. */
export function resolveHint (coll: Collection | undefined, hint: unknown): QuerySpec['hint'] {
  if (hint === undefined || hint === null || coll === undefined) return undefined
  if (typeof hint === 'string') {
    const ix = coll.findIndex(hint)
    if (ix === undefined) throw badValue('hint provided does not correspond to an existing index')
    return { index: ix }
  }
  if (isPlainDoc(hint)) {
    const keys = Object.keys(hint)
    if (keys.length === 0) return undefined
    if (keys.length === 1 && keys[0] === '$natural') {
      return { natural: isNumeric(hint.$natural) && toNumber(hint.$natural) < 0 ? -1 : 1 }
    }
    const spec = JSON.stringify(hint)
    const ix = coll.indexes.find((i) => JSON.stringify(i.key) === spec)
    if (ix === undefined) throw badValue('hint provided does not correspond to an existing index')
    return { index: ix }
  }
  throw badValue('hint must be a string or an object')
}

/** Plans and opens a query; the executor yields documents lazily. */
export function openQuery (coll: Collection, prepared: PreparedFilter, opts: SelectOptions = {}): PlanExecutor {
  const ctx = { coll, deadline: opts.deadline ?? NO_DEADLINE }
  const spec: QuerySpec = {
    filter: prepared.filter,
    matcher: prepared.matcher,
    text: prepared.score !== undefined,
    score: prepared.score,
    sort: opts.sort ?? [],
    skip: opts.skip ?? 0,
    limit: opts.limit ?? 0,
    hint: resolveHint(coll, opts.hint),
    collation: prepared.collation,
    count: opts.count,
    sortMemoryLimit: opts.sortMemoryLimit,
    errorContext: opts.errorContext ?? 'Executor error'
  }
  const natural = spec.sort.filter((k) => k.meta === 'natural')
  if (natural.length > 0 && spec.sort.length > 1) {
    throw badValue('$natural sort cannot be combined with other sort keys')
  }
  // Explain plans afresh (planCache: false) to show every candidate; a lookup by `_id` needs no planning otherwise.
  const point = opts.planCache === false ? undefined : idPointPlan(ctx, spec)
  if (point !== undefined) return new PlanExecutor(ctx, [point], spec.limit)
  const shape = opts.planCache === false ? undefined : queryShape(spec)
  const cached = shape === undefined ? undefined : coll.planCache.get(shape)
  if (shape !== undefined && cached !== undefined) {
    const plan = indexPlan(ctx, spec, cached.index)
    try {
      if (plan !== undefined) return new PlanExecutor(ctx, [plan], spec.limit, cached.works)
    } catch (e) {
      if (!(e instanceof CachedPlanTooSlow)) throw e
    }
    coll.planCache.delete(shape)
  }
  const exec = new PlanExecutor(ctx, planQuery(ctx, spec), spec.limit)
  if (shape !== undefined && exec.chosenIndex !== undefined) {
    coll.planCache.set(shape, { index: exec.chosenIndex, works: Math.max(1, exec.root.works) })
  }
  return exec
}

/** `collation` is the operation's effective collation (see effectiveCollation). */
export function select (
  coll: Collection | undefined,
  filter: Document | undefined,
  opts: SelectOptions,
  variables: Document | undefined,
  collation: Collation | undefined
): Selection {
  const prepared = prepareFilter(coll, filter, variables, collation)
  if (coll === undefined) return { docs: [] }
  return selectPrepared(coll, prepared, opts)
}

export function selectPrepared (coll: Collection, prepared: PreparedFilter, opts: SelectOptions = {}): Selection {
  const exec = openQuery(coll, prepared, opts)
  const docs: Document[] = []
  for (let d = exec.next(); d !== undefined; d = exec.next()) docs.push(d)
  return { docs, score: prepared.score }
}
