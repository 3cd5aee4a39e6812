/**
 * What a stream's pipeline lets devdb skip, as mongod rewrites a `$match` on the event's metadata
 * into its oplog scan:
 * - leading `$match` stages that read only an event's cheap fields (its kind, namespace, key,
 *   times) are tested before the event is built, so a stream that keeps a few kinds of change
 *   does not pay for building the others;
 * - such matches followed by one inclusion `$project` need no pipeline run at all (the
 *   projection is applied directly);
 * - a pipeline of `$match` and inclusion `$project` stages (one at least) that neither reads nor
 *   keeps `fullDocument`, `updateDescription` or `fullDocumentBeforeChange` gets events without
 *   them (its output is the same: nothing reads them, the projection drops them).
 * Anything not understood here (`$expr`, `$where`, other stages, computed projections) keeps the
 * plain path: the whole event, through the whole pipeline.
 */
import type { Document } from 'bson'
import { Query } from 'mingo/query'
import { isPlainDoc } from '../bson/paths.js'
import { sharedMingoOptions } from '../query/options.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { stageName } from '../query/pipeline.js'

/**
 * The fields an event has before its images and update description are added. With
 * `fullDocument: 'default'` (`documentInHead`), `fullDocument` is cheap too: it is only an
 * insert's or a replacement's stored document (nothing to copy or look up).
 */
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
  /**
   * The whole pipeline, when it is the prefilter's matches and then one inclusion `$project`:
   * that projection, applied directly (no copy, no mingo). Undefined for an event whose shape it
   * does not handle (a path through an array or a scalar): the pipeline then runs as usual.
   */
  project?: (event: Document) => Document | undefined
}

/** A projection's paths as a tree: `true` keeps the whole value. */
type Paths = Map<string, Paths | true>

function pathTree (keys: string[]): Paths | null {
  const root: Paths = new Map()
  for (const key of keys) {
    const parts = key.split('.')
    let node = root
    for (let i = 0; i < parts.length; i++) {
      const have = node.get(parts[i])
      if (i === parts.length - 1) {
        if (have !== undefined) return null // a path collision: mingo reports it
        node.set(parts[i], true)
      } else if (have === true) {
        return null
      } else {
        const next: Paths = have ?? new Map()
        node.set(parts[i], next)
        node = next
      }
    }
  }
  return root
}

/** mongod's inclusion: the kept fields in the document's order, sub-documents walked into; undefined where that needs more. */
function include (doc: Document, paths: Paths): Document | undefined {
  const out: Document = {}
  for (const key of Object.keys(doc)) {
    const sub = paths.get(key)
    if (sub === undefined) continue
    const value = doc[key]
    if (sub === true) out[key] = value
    else {
      if (!isPlainDoc(value)) return undefined
      const inner = include(value, sub)
      if (inner === undefined) return undefined
      out[key] = inner
    }
  }
  return out
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

export function planPushdown (stages: Document[], opts: { documentInHead?: boolean } = {}): Pushdown {
  const cheap = (f: string): boolean => HEAD_FIELDS.has(f) || (opts.documentInHead === true && f === 'fullDocument')
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
    if (leading && name === '$match' && [...fields].every(cheap)) {
      tests.push(new Query(stage.$match as Document, sharedMingoOptions()))
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
  const last = stages[stages.length - 1]
  if (analysable && tests.length === stages.length - 1 && stageName(last) === '$project') {
    const keys = Object.keys(last.$project as Document)
    const paths = pathTree(keys.includes('_id') ? keys : ['_id', ...keys])
    if (paths !== null) out.project = (event) => include(event, paths)
  }
  return out
}
