/**
 * mongod's plan cache: once the multi-planner has chosen among several plans for a query shape
 * (the filter's fields, operators and value types, the sort, whether there is a skip/limit, the
 * collation), later queries of that shape run the winning index's plan without a trial. A cached
 * plan that needs more than ten times the works of its trial before producing its first batch is
 * evicted and the query replanned, as mongod's CachedPlanStage does. Index changes clear the cache.
 */
import type { Document } from 'bson'
import { bsonTypeName } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'
import type { QuerySpec } from './query-spec.js'

export interface CachedPlan {
  index: string
  works: number
}

const MAX_ENTRIES = 1000

export class PlanCache {
  private readonly entries = new Map<string, CachedPlan>()

  get (shape: string): CachedPlan | undefined {
    return this.entries.get(shape)
  }

  set (shape: string, plan: CachedPlan): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
    this.entries.set(shape, plan)
  }

  delete (shape: string): void {
    this.entries.delete(shape)
  }

  clear (): void {
    this.entries.clear()
  }
}

/** The cache key of a query, or undefined when it must always be planned (hint, $text). */
export function queryShape (q: QuerySpec): string | undefined {
  if (q.hint !== undefined || q.text) return undefined
  return JSON.stringify([
    shapeOf(q.filter ?? {}),
    q.sort.map((k) => [k.path, k.dir, k.meta ?? 0]),
    q.skip > 0,
    q.limit > 0,
    q.count === true,
    q.collation?.spec ?? 0
  ])
}

function shapeOf (v: unknown): unknown {
  if (Array.isArray(v)) {
    return ['[]', [...new Set(v.map((x) => (isPlainDoc(x) ? JSON.stringify(shapeOf(x)) : bsonTypeName(x))))].sort()]
  }
  if (isPlainDoc(v)) {
    const out: Document = {}
    for (const [k, x] of Object.entries(v)) out[k] = shapeOf(x)
    return out
  }
  return bsonTypeName(v)
}
