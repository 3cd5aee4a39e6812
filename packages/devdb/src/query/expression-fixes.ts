/**
 * Expression, accumulator and stage operators where mingo 7 answers differently from MongoDB 7.0
 * (checked case by case); each wraps or replaces mingo's operator with mongod's behaviour.
 */
import { ObjectId, calculateObjectSize, type Document } from 'bson'
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { Lazy, type Iterator } from 'mingo/lazy'
import {
  $project as mingoProject,
  $bucketAuto as mingoBucketAuto,
  $limit as mingoLimit,
  $skip as mingoSkip,
  $sample as mingoSample
} from 'mingo/operators/pipeline'
import { CommandError } from '../errors.js'
import { bsonTypeName, isNumeric, toNumber } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'
import { mingoAcc, mingoExpr, operands, typeOf, type AccOp, type ExprOp } from './operator-kit.js'

/** Date part operators return null for a null or missing date (mingo throws). */
function nullDateSafe (name: string): ExprOp {
  const inner = mingoExpr[name]
  return (obj, expr, options) => {
    const dateExpr = isPlainDoc(expr) && 'date' in expr ? expr.date : expr
    const date = evalExpr(obj, dateExpr, options)
    if (date === null || date === undefined) {
      if (name === '$dateToString' && isPlainDoc(expr) && 'onNull' in expr) return evalExpr(obj, expr.onNull, options)
      return null
    }
    return inner(obj, expr, options)
  }
}

const DATE_OPS = [
  '$year',
  '$month',
  '$dayOfMonth',
  '$dayOfWeek',
  '$dayOfYear',
  '$hour',
  '$minute',
  '$second',
  '$millisecond',
  '$week',
  '$isoWeek',
  '$isoWeekYear',
  '$isoDayOfWeek',
  '$dateToString',
  '$dateToParts'
]

function single (obj: unknown, expr: unknown, options: Options): unknown {
  const v = evalExpr(obj, expr, options)
  return Array.isArray(expr) && expr.length === 1 ? (v as unknown[])[0] : v
}

function firstLast (name: '$first' | '$last'): ExprOp {
  return (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (!Array.isArray(v)) {
      throw new CommandError(28689, 'Location28689', `${name}'s argument must be an array, but is ${typeOf(v)}`)
    }
    return name === '$first' ? v[0] : v[v.length - 1]
  }
}

/** MongoDB 7.0 expressions mingo does not have. */
export const addedExpressions: Record<string, ExprOp> = {
  $indexOfCP: (obj, expr, options) => {
    const [str, sub, start, end] = operands('$indexOfCP', obj, expr, options, 2, 4)
    if (str === null || str === undefined) return null
    if (typeof str !== 'string') {
      throw new CommandError(
        40093,
        'Location40093',
        `$indexOfCP requires a string as the first argument, found: ${typeOf(str)}`
      )
    }
    if (typeof sub !== 'string') {
      throw new CommandError(
        40094,
        'Location40094',
        `$indexOfCP requires a string as the second argument, found: ${typeOf(sub)}`
      )
    }
    const cps = [...str]
    const subCps = [...sub]
    const from = isNumeric(start) ? toNumber(start) : 0
    const to = isNumeric(end) ? Math.min(toNumber(end), cps.length) : cps.length
    for (let i = from; i + subCps.length <= to; i++) {
      if (subCps.every((c, j) => cps[i + j] === c)) return i
    }
    return -1
  },
  $toObjectId: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (bsonTypeName(v) === 'objectId') return v
    if (typeof v === 'string' && /^[0-9a-fA-F]{24}$/.test(v)) return new ObjectId(v)
    throw new CommandError(
      241,
      'ConversionFailure',
      `Failed to parse objectId '${String(v)}' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found ${String(v).length}`
    )
  },
  $bsonSize: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (!isPlainDoc(v)) {
      throw new CommandError(31393, 'Location31393', `$bsonSize requires a document input, found: ${typeOf(v)}`)
    }
    return calculateObjectSize(v)
  },
  $binarySize: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (typeof v === 'string') return Buffer.byteLength(v, 'utf8')
    if (bsonTypeName(v) === 'binData') return (v as { position: number }).position
    throw new CommandError(
      51276,
      'Location51276',
      `$binarySize requires a string or BinData argument, found: ${typeOf(v)}`
    )
  },
  $tsSecond: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (bsonTypeName(v) !== 'timestamp') {
      throw new CommandError(5687301, 'Location5687301', `$tsSecond requires a timestamp argument, found: ${typeOf(v)}`)
    }
    return (v as { t: number }).t
  },
  $tsIncrement: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (v === null || v === undefined) return null
    if (bsonTypeName(v) !== 'timestamp') {
      throw new CommandError(
        5687302,
        'Location5687302',
        `$tsIncrement requires a timestamp argument, found: ${typeOf(v)}`
      )
    }
    return (v as { i: number }).i
  }
}

export const expressionFixes: Record<string, ExprOp> = {
  ...addedExpressions,
  ...Object.fromEntries(DATE_OPS.filter((n) => typeof mingoExpr[n] === 'function').map((n) => [n, nullDateSafe(n)])),
  $size: (obj, expr, options) => {
    const v = single(obj, expr, options)
    if (!Array.isArray(v)) {
      throw new CommandError(
        17124,
        'Location17124',
        `The argument to $size must be an array. Type of the argument was: ${typeOf(v)}`
      )
    }
    return v.length
  },
  $first: firstLast('$first'),
  $last: firstLast('$last')
}

/** $top/$bottom return the single selected value, not a one-element array. */
export const accumulatorFixes: Record<string, AccOp> = {
  $top: (coll, expr, options) =>
    (mingoAcc.$topN(coll, { ...(expr as Document), n: 1 }, options) as unknown[])[0] ?? null,
  $bottom: (coll, expr, options) =>
    (mingoAcc.$bottomN(coll, { ...(expr as Document), n: 1 }, options) as unknown[])[0] ?? null
}

/** `_id` leads every $project output document, as in mongod. */
export function idFirst (d: unknown): unknown {
  if (!isPlainDoc(d) || !('_id' in d) || Object.keys(d)[0] === '_id') return d
  const { _id, ...rest } = d
  return { _id, ...rest }
}

const isFlag = (v: unknown): boolean => typeof v === 'boolean' || isNumeric(v)

/**
 * mongod's output order for a projection: included fields in the input document's order, then
 * computed fields in the order of the specification (mingo sorts keys alphabetically).
 */
export function projectionOrder (input: unknown, output: unknown, flatSpec: Document): unknown {
  if (!isPlainDoc(input) || !isPlainDoc(output)) return output
  const spec = nestSpec(flatSpec)
  const computed: string[] = []
  for (const [k, v] of Object.entries(spec)) {
    const sub = isPlainDoc(v) && !Object.keys(v).some((x) => x.startsWith('$')) && Object.values(v).every(isFlag)
    if (!isFlag(v) && !sub) computed.push(k)
  }
  const out: Document = {}
  for (const k of Object.keys(input)) {
    if (!(k in output) || computed.includes(k)) continue
    const sub = spec[k]
    out[k] =
      isPlainDoc(sub) && isPlainDoc(input[k]) && !Object.keys(sub).some((x) => x.startsWith('$'))
        ? projectionOrder(input[k], output[k], sub)
        : output[k]
  }
  for (const k of computed) if (k in output) out[k] = output[k]
  for (const k of Object.keys(output)) if (!(k in out)) out[k] = output[k]
  return idFirst(out)
}

/** `{ 'a.b': 1 }` → `{ a: { b: 1 } }` so nested inclusions can be ordered like top-level ones. */
function nestSpec (spec: Document): Document {
  if (!Object.keys(spec).some((k) => k.includes('.'))) return spec
  const out: Document = {}
  for (const [k, v] of Object.entries(spec)) {
    const parts = k.split('.')
    let cur = out
    for (let i = 0; i < parts.length - 1; i++) {
      if (!isPlainDoc(cur[parts[i]])) cur[parts[i]] = {}
      cur = cur[parts[i]] as Document
    }
    cur[parts[parts.length - 1]] = v
  }
  return out
}

/**
 * A $project specification with its inclusion flags as JS numbers: clients that send numbers as
 * doubles (`{ a: 1.0 }`) or longs mean inclusion, and mingo knows only `1`/`true`.
 */
function plainFlags (spec: unknown): unknown {
  if (!isPlainDoc(spec) || Object.keys(spec).some((k) => k.startsWith('$'))) return spec
  const out: Document = {}
  for (const [k, v] of Object.entries(spec)) out[k] = isNumeric(v) ? toNumber(v) : plainFlags(v)
  return out
}

/** A numeric stage argument (`$limit: NumberLong(5)`, `$skip: 2.0`) as the JS number mingo expects. */
const plainCount = (v: unknown): unknown => (isNumeric(v) ? toNumber(v) : v)

export const stageFixes = {
  $project: (coll: Iterator, expr: unknown, options: Options): Iterator => {
    const spec = plainFlags(expr) as Document
    return coll.map((d: unknown) =>
      projectionOrder(d, mingoProject(Lazy([d]), spec as never, options).next().value, spec)
    )
  },
  $bucketAuto: (coll: Iterator, expr: unknown, options: Options): Iterator =>
    mingoBucketAuto(
      coll,
      (isPlainDoc(expr) ? { ...expr, buckets: plainCount(expr.buckets) } : expr) as never,
      options
    ).map(idFirst),
  $limit: (coll: Iterator, expr: unknown, options: Options): Iterator =>
    mingoLimit(coll, plainCount(expr) as never, options),
  $skip: (coll: Iterator, expr: unknown, options: Options): Iterator =>
    mingoSkip(coll, plainCount(expr) as never, options),
  $sample: (coll: Iterator, expr: unknown, options: Options): Iterator =>
    mingoSample(coll, (isPlainDoc(expr) ? { ...expr, size: plainCount(expr.size) } : expr) as never, options)
}
