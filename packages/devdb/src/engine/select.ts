/**
 * Document selection shared by find, count, distinct, update, delete and findAndModify:
 * validation, `$text` scoring, index-assisted candidate lookup, filter, sort, skip and limit.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import type { Collection } from './collection.js'
import { TextIndexDef } from './index-build.js'
import { textApi } from './text-bridge.js'
import { compileFilter } from '../query/options.js'
import { validateFilter } from '../query/validate.js'
import { sortDocs, topK, type SortKey } from '../query/sort.js'
import { NO_DEADLINE, type Deadline } from './deadline.js'

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
}

export interface PreparedFilter {
  filter: Document | undefined
  matcher: (d: Document) => boolean
  score?: (d: Document) => number
}

export function textIndexOf (coll: Collection | undefined): TextIndexDef | undefined {
  return coll?.indexes.find((ix): ix is TextIndexDef => ix instanceof TextIndexDef)
}

/** Validates and compiles a filter; `$text` becomes a scoring pre-filter. */
export function prepareFilter (coll: Collection | undefined, filter: Document | undefined, variables?: Document): PreparedFilter {
  if (filter === undefined || filter === null) return { filter: undefined, matcher: () => true }
  const info = validateFilter(filter)
  const extra = variables !== undefined ? { variables } : {}
  if (!info.hasText) return { filter, matcher: compileFilter(filter, extra) }
  const ix = textIndexOf(coll)
  const api = textApi()
  if (ix === undefined || api === undefined) {
    throw new CommandError(Codes.IndexNotFound, 'IndexNotFound', 'text index required for $text query')
  }
  const query = api.parseTextQuery(filter.$text as Document, ix.text)
  const rest: Document = { ...filter }
  delete rest.$text
  const restMatcher = compileFilter(rest, extra)
  const scores = new WeakMap<Document, number>()
  const scoreOf = (d: Document): number => {
    let s = scores.get(d)
    if (s === undefined) {
      s = api.textScore(d, ix.text, query)
      scores.set(d, s)
    }
    return s
  }
  return { filter: rest, matcher: (d) => scoreOf(d) > 0 && restMatcher(d), score: scoreOf }
}

export function select (coll: Collection | undefined, filter: Document | undefined, opts: SelectOptions = {}, variables?: Document): Selection {
  const prepared = prepareFilter(coll, filter, variables)
  if (coll === undefined) return { docs: [] }
  return selectPrepared(coll, prepared, opts)
}

export function selectPrepared (coll: Collection, prepared: PreparedFilter, opts: SelectOptions = {}): Selection {
  const { score } = prepared
  const stats = coll.stats
  // Every document examined counts, as mongod's scannedObjects does.
  const deadline = opts.deadline ?? NO_DEADLINE
  const matcher = (d: Document): boolean => { stats.scannedObjects++; deadline.tick(); return prepared.matcher(d) }
  const source = coll.candidates(prepared.filter)
  const skip = opts.skip ?? 0
  const limit = opts.limit ?? 0
  let sort = opts.sort ?? []
  // { $natural: ±1 } is the collection's own order (reversed for -1); it stands alone.
  const natural = sort.find(k => k.meta === 'natural')
  if (natural !== undefined) {
    if (sort.length > 1) throw new CommandError(Codes.BadValue, 'BadValue', '$natural sort cannot be combined with other sort keys')
    sort = []
    if (natural.dir === -1) {
      const all = [...source].filter(matcher).reverse()
      return { docs: all.slice(skip, limit > 0 ? skip + limit : undefined), score }
    }
  }
  let docs: Document[]
  if (sort.length > 0 && limit > 0 && sort.every(k => k.meta === undefined)) {
    docs = topK(source, sort, skip + limit, matcher).slice(skip)
  } else if (sort.length > 0) {
    const all: Document[] = []
    for (const d of source) if (matcher(d)) all.push(d)
    docs = sortDocs(all, sort, score)
    docs = docs.slice(skip, limit > 0 ? skip + limit : undefined)
  } else {
    docs = []
    let skipped = 0
    for (const d of source) {
      if (!matcher(d)) continue
      if (skipped < skip) { skipped++; continue }
      docs.push(d)
      if (limit > 0 && docs.length >= limit) break
    }
  }
  return { docs, score }
}
