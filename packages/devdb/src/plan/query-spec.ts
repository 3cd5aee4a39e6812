/** What a find, count or explain asks the planner for (its own file: the plan cache keys on it). */
import type { Document } from 'bson'
import type { Collation } from '../collation/collation.js'
import type { IndexDef } from '../engine/index-def.js'
import type { SortKey } from '../query/sort.js'

export interface QuerySpec {
  /** the filter as the client sent it (explain's parsedQuery, stages' `filter`) */
  filter?: Document
  matcher: (d: Document) => boolean
  /** `$text` queries are answered by scanning with the text matcher */
  text: boolean
  score?: (d: Document) => number
  sort: SortKey[]
  skip: number
  /** 0 = none */
  limit: number
  /** an index (resolved by the caller), or a collection scan in a direction */
  hint?: { index: IndexDef } | { natural: 1 | -1 }
  collation?: Collation
  /** count command: answer with a COUNT root */
  count?: boolean
  /** bytes a blocking sort may hold (undefined: no limit) */
  sortMemoryLimit?: number
  errorContext: string
}
