/**
 * The leading `$match`/`$sort`/`$skip`/`$limit` stages of a pipeline, which run through the query
 * planner (indexes, a sort walked from an index, limits that stop scans) as mongod pushes them
 * into its query layer. The rest of the pipeline runs in mingo on the planner's output.
 */
import { toNumber } from '../bson/bson-order.js'
import type { Document } from 'bson'
import { parseSort, type SortKey } from './sort.js'
import { stageName } from './pipeline.js'

export interface PipelineHead {
  filter?: Document
  sort: SortKey[]
  skip: number
  /** undefined: no limit */
  limit?: number
  rest: Document[]
}

export function splitPipelineHead (pipeline: Document[]): PipelineHead {
  const matches: Document[] = []
  let i = 0
  while (i < pipeline.length && stageName(pipeline[i]) === '$match') matches.push(pipeline[i++].$match as Document)
  let sort: SortKey[] = []
  if (i < pipeline.length && stageName(pipeline[i]) === '$sort') {
    const parsed = parseSort(pipeline[i].$sort)
    // $natural is refused in pipelines (by the $sort stage itself).
    if (parsed.length > 0 && !parsed.some((k) => k.meta === 'natural')) {
      sort = parsed
      i++
    }
  }
  let skip = 0
  let limit: number | undefined
  for (; i < pipeline.length; i++) {
    const name = stageName(pipeline[i])
    if (name === '$skip') {
      const s = toNumber(pipeline[i].$skip)
      if (limit !== undefined) limit = Math.max(0, limit - s)
      skip += s
    } else if (name === '$limit') {
      const l = toNumber(pipeline[i].$limit)
      limit = limit === undefined ? l : Math.min(limit, l)
    } else break
  }
  const filter = matches.length === 0 ? undefined : matches.length === 1 ? matches[0] : { $and: matches }
  return { filter, sort, skip, limit, rest: pipeline.slice(i) }
}
