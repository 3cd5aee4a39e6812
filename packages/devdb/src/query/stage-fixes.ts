/**
 * Pipeline stages replaced because mingo's answers differ from mongod's:
 * - $count on no input yields no document (mingo yields `{ n: 0 }`);
 * - $lookup (localField/foreignField) treats a missing local field as null, matches array
 *   elements on both sides and compares with BSON equality (mingo drops missing fields);
 * - $unwind's `includeArrayIndex` is a long (mingo writes a JS number, i.e. an int);
 * - $graphLookup joins by BSON equality too (mingo's uses JS equality through its own $lookup).
 */
import { Long, type Document } from 'bson'
import { Lazy, type Iterator } from 'mingo/lazy'
import { $lookup as mingoLookup, $unwind as mingoUnwind } from 'mingo/operators/pipeline'
import type { Options } from 'mingo/types'
import { evalExpr } from 'mingo/core'
import { Query } from 'mingo/query'
import { CommandError, Codes } from '../errors.js'
import { getPath, isPlainDoc, valuesAtPath } from '../bson/paths.js'
import { keyString } from '../bson/key-string.js'
import { bsonQueryOperators } from './bson-operators.js'

const $count = (coll: Iterator, expr: unknown): Iterator => {
  const field = String(expr)
  return coll.transform((docs: unknown[]) => Lazy(docs.length === 0 ? [] : [{ [field]: docs.length }]))
}

function setPath (doc: Document, path: string, value: unknown): Document {
  const out: Document = { ...doc }
  const parts = path.split('.')
  let cur = out
  for (let i = 0; i < parts.length - 1; i++) {
    const next = cur[parts[i]]
    cur[parts[i]] = isPlainDoc(next) ? { ...next } : {}
    cur = cur[parts[i]] as Document
  }
  cur[parts[parts.length - 1]] = value
  return out
}

const $lookup = (coll: Iterator, expr: unknown, options: Options): Iterator => {
  const spec = expr as Document
  if (!isPlainDoc(spec)) {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', 'the $lookup specification must be an Object')
  }
  if (spec.pipeline !== undefined || spec.localField === undefined) return mingoLookup(coll, spec as never, options)
  const { from, localField, foreignField, as } = spec
  if (typeof from !== 'string') {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', "missing 'from' option to $lookup stage specification")
  }
  if (typeof localField !== 'string' || typeof foreignField !== 'string') {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      "$lookup argument 'localField' and 'foreignField' must be strings"
    )
  }
  if (typeof as !== 'string') {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', "must specify 'as' field for a $lookup")
  }
  const foreign = options.collectionResolver?.(from) ?? []
  const cache = new Map<string, unknown[]>()
  return coll.map((d: unknown) => {
    const doc = d as Document
    const locals = joinValues(doc, localField)
    if (locals.length === 0) locals.push(null)
    const key = locals.map(keyString).join('|')
    let matches = cache.get(key)
    if (matches === undefined) {
      const test = bsonQueryOperators.$in(foreignField, locals, options)
      matches = foreign.filter((f) => test(f as Document))
      cache.set(key, matches)
    }
    return setPath(doc, as, matches)
  })
}

const $unwind = (coll: Iterator, expr: unknown, options: Options): Iterator => {
  const field = isPlainDoc(expr) && typeof expr.includeArrayIndex === 'string' ? expr.includeArrayIndex : undefined
  const out = mingoUnwind(coll, expr as never, options)
  if (field === undefined) return out
  return out.map((d: unknown) => {
    const i = getPath(d, field)
    return typeof i === 'number' ? setPath(d as Document, field, Long.fromNumber(i)) : d
  })
}

/** The values of `path` in `doc`, array elements each on their own (the join values of a lookup). */
function joinValues (doc: unknown, path: string): unknown[] {
  const out: unknown[] = []
  for (const v of valuesAtPath(doc, path)) {
    if (Array.isArray(v)) out.push(...v)
    else out.push(v)
  }
  return out
}

/**
 * $graphLookup: a breadth-first search through `from`, each round matching `connectToField`
 * against the values found so far by BSON equality (as $lookup), each document once, at the
 * depth it was first reached (a long, as mongod writes `depthField`).
 */
const $graphLookup = (coll: Iterator, expr: unknown, options: Options): Iterator => {
  if (!isPlainDoc(expr)) {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', 'the $graphLookup specification must be an Object')
  }
  for (const f of ['from', 'connectFromField', 'connectToField', 'as']) {
    if (typeof expr[f] !== 'string') {
      throw new CommandError(40103, 'Location40103', `$graphLookup requires '${f}' to be a string`)
    }
  }
  const spec = expr as {
    from: string
    connectFromField: string
    connectToField: string
    as: string
    startWith: unknown
    maxDepth?: unknown
    depthField?: unknown
    restrictSearchWithMatch?: unknown
  }
  const maxDepth = spec.maxDepth === undefined ? Infinity : Number(spec.maxDepth)
  const restrict = isPlainDoc(spec.restrictSearchWithMatch)
    ? new Query(spec.restrictSearchWithMatch, options)
    : undefined
  const foreign = (options.collectionResolver?.(spec.from) ?? []) as Document[]
  return coll.map((d: unknown) => {
    const doc = d as Document
    const start = evalExpr(doc, spec.startWith, options)
    let frontier = Array.isArray(start) ? start : [start]
    const reached = new Map<string, Document>()
    for (let depth = 0; frontier.length > 0 && depth <= maxDepth; depth++) {
      const test = bsonQueryOperators.$in(spec.connectToField, frontier, options)
      const next: unknown[] = []
      for (const f of foreign) {
        const id = keyString(f._id)
        if (reached.has(id) || !test(f) || (restrict !== undefined && !restrict.test(f))) continue
        reached.set(id, typeof spec.depthField === 'string' ? setPath(f, spec.depthField, Long.fromNumber(depth)) : f)
        next.push(...joinValues(f, spec.connectFromField))
      }
      frontier = next
    }
    return setPath(doc, spec.as, [...reached.values()])
  })
}

export const stageValueFixes = { $count, $lookup, $unwind, $graphLookup }
