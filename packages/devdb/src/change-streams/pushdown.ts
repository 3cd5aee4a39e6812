/**
 * What a stream's pipeline lets devdb skip, as mongod rewrites a `$match` on the event's metadata
 * into its oplog scan: leading `$match` stages that read only an event's cheap fields (its kind,
 * namespace, key, times) are tested before the event is built, so a stream that keeps a few kinds
 * of change does not pay for building the others; and a pipeline of `$match` and inclusion
 * `$project` stages (one at least) that neither reads nor keeps `fullDocument`,
 * `updateDescription` or `fullDocumentBeforeChange` gets events without them (its output is the
 * same: nothing reads them, the projection drops them). Anything not understood here (`$expr`, `$where`, other stages, computed
 * projections) keeps the plain path: the whole event, through the whole pipeline.
 */
import type { Document } from 'bson'
import { Query } from 'mingo/query'
import { isPlainDoc } from '../bson/paths.js'
import { mingoOptions } from '../query/options.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { stageName } from '../query/pipeline.js'

/** The fields an event has before its images and update description are added. */
export const HEAD_FIELDS = new Set([
  '_id',
  'operationType',
  'clusterTime',
  'wallTime',
  'ns',
  'to',
  'documentKey',
  'lsid',
  'txnNumber'
])

/** The fields that cost a copy, a diff or a lookup to build. */
export type CostlyField = 'fullDocument' | 'updateDescription' | 'fullDocumentBeforeChange'
const COSTLY: CostlyField[] = ['fullDocument', 'updateDescription', 'fullDocumentBeforeChange']

export interface Pushdown {
  /** Tested on an event's head fields: false drops the event unbuilt. */
  prefilter?: (head: Document) => boolean
  /** The costly fields the pipeline reads or returns; undefined: all of them. */
  needs?: Set<CostlyField>
}

/** Logical operators whose operands are whole queries; `$comment` reads nothing. */
const LOGICAL = new Set(['$and', '$or', '$nor'])

/** The top-level fields a query reads, or null when it may read anything (`$expr`, `$where`, …). */
export function queryFields (query: unknown, into = new Set<string>()): Set<string> | null {
  if (!isPlainDoc(query)) return null
  for (const [key, value] of Object.entries(query)) {
    if (key === '$comment') continue
    if (LOGICAL.has(key)) {
      if (!Array.isArray(value)) return null
      for (const branch of value) if (queryFields(branch, into) === null) return null
      continue
    }
    if (key.startsWith('$')) return null
    // A field's own operators ($eq, $in, $elemMatch …) read only that field.
    into.add(key.split('.')[0])
  }
  return into
}

/** The top-level fields an inclusion projection keeps, or null for any other projection. */
function inclusionFields (projection: unknown): Set<string> | null {
  if (!isPlainDoc(projection)) return null
  const out = new Set<string>()
  for (const [key, value] of Object.entries(projection)) {
    if (key.startsWith('$') || (value !== 1 && value !== true)) return null
    out.add(key.split('.')[0])
  }
  return out
}

export function planPushdown (stages: Document[]): Pushdown {
  const out: Pushdown = {}
  const tests: Query[] = []
  let leading = true
  const read = new Set<string>()
  let analysable = true
  let projected = false
  for (const stage of stages) {
    const name = stageName(stage)
    const fields =
      name === '$match' ? queryFields(stage.$match) : name === '$project' ? inclusionFields(stage.$project) : null
    if (fields === null) {
      analysable = false
      leading = false
      continue
    }
    for (const f of fields) read.add(f)
    if (name === '$project') projected = true
    if (leading && name === '$match' && [...fields].every((f) => HEAD_FIELDS.has(f))) {
      tests.push(new Query(stage.$match as Document, mingoOptions({})))
    } else leading = false
  }
  if (tests.length > 0) {
    out.prefilter = (head) => {
      try {
        return tests.every((q) => q.test(head))
      } catch (e) {
        throw translateMingoError(e)
      }
    }
  }
  if (analysable && projected) out.needs = new Set(COSTLY.filter((f) => read.has(f)))
  return out
}
