/**
 * The projection operators devdb replaces: `$elemMatch` keeps the first element that matches as
 * the query operator `$elemMatch` matches it — so a condition of operators only (`{ $in: […] }`,
 * `{ $gte: 3 }`) applies to the element itself, as in mongod (mingo's tested it as a document:
 * "unknown top level operator").
 */
import type { Document } from 'bson'
import { Query } from 'mingo/query'
import { resolve } from 'mingo/util'
import type { Options } from 'mingo/types'
import { normalizeFilter } from './normalize-filter.js'

export const projectionFixes = {
  $elemMatch: (obj: Document, expr: unknown, field: string, options: Options): unknown => {
    const arr = resolve(obj, field)
    if (!Array.isArray(arr)) return undefined
    const query = new Query(normalizeFilter({ v: { $elemMatch: expr } }), options)
    const hit = arr.find((item) => query.test({ v: [item] }))
    return hit === undefined ? undefined : [hit]
  }
}
