/**
 * Pipeline stages replaced because mingo's answers differ from mongod's:
 * - $count on no input yields no document (mingo yields `{ n: 0 }`);
 * - $lookup (localField/foreignField) treats a missing local field as null, matches array
 *   elements on both sides and compares with BSON equality (mingo drops missing fields).
 */
import type { Document } from 'bson'
import { Lazy, type Iterator } from 'mingo/lazy'
import { $lookup as mingoLookup } from 'mingo/operators/pipeline'
import type { Options } from 'mingo/types'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc, valuesAtPath } from '../engine/paths.js'
import { keyString } from '../engine/key-string.js'
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
  if (!isPlainDoc(spec)) throw new CommandError(Codes.FailedToParse, 'FailedToParse', 'the $lookup specification must be an Object')
  if (spec.pipeline !== undefined || spec.localField === undefined) return mingoLookup(coll, spec as never, options)
  const { from, localField, foreignField, as } = spec
  if (typeof from !== 'string') throw new CommandError(Codes.FailedToParse, 'FailedToParse', "missing 'from' option to $lookup stage specification")
  if (typeof localField !== 'string' || typeof foreignField !== 'string') throw new CommandError(Codes.FailedToParse, 'FailedToParse', "$lookup argument 'localField' and 'foreignField' must be strings")
  if (typeof as !== 'string') throw new CommandError(Codes.FailedToParse, 'FailedToParse', "must specify 'as' field for a $lookup")
  const foreign = options.collectionResolver?.(from) ?? []
  const cache = new Map<string, unknown[]>()
  return coll.map((d: unknown) => {
    const doc = d as Document
    const locals: unknown[] = []
    for (const v of valuesAtPath(doc, localField)) {
      if (Array.isArray(v)) locals.push(...(v.length === 0 ? [] : v))
      else locals.push(v)
    }
    if (locals.length === 0) locals.push(null)
    const key = locals.map(keyString).join('|')
    let matches = cache.get(key)
    if (matches === undefined) {
      const test = bsonQueryOperators.$in(foreignField, locals, options)
      matches = foreign.filter(f => test(f as Document))
      cache.set(key, matches)
    }
    return setPath(doc, as, matches)
  })
}

export const lookupCountFixes = { $count, $lookup }
