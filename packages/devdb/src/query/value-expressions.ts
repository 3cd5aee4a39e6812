/**
 * Expressions that test, compare or collect values, over BSON values rather than mingo's JS
 * ones: truthiness (a zero of any numeric type is false, `0.0` and `NumberLong(0)` included),
 * equality and order by BSON comparison (numbers by value across types), sets deduplicated by
 * value. Everything else mingo evaluates is adapted at the end of this file: operators that
 * compute a new value get plain numbers, operators that hand operands back keep them as they are.
 */
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { compareValues } from '../bson/bson-order.js'
import { keyString } from '../bson/key-string.js'
import { isPlainDoc } from '../bson/paths.js'
import { isZero, numKind, plainNumber, toDouble } from '../bson/numeric.js'
import { collatorOf } from '../collation/collation.js'
import { plainLiterals } from './number-expressions.js'
import { sortDocs, parseSort } from './sort.js'
import { fail, mingoExpr, operands, typeOf, type ExprOp } from './operator-kit.js'

/** mongod's truth: false, null, missing and numeric zeros are false; everything else is true. */
export function truthy (v: unknown): boolean {
  if (v === false || v === null || v === undefined) return false
  return numKind(v) === undefined || !isZero(v)
}

const $and: ExprOp = (obj, expr, options) =>
  (Array.isArray(expr) ? expr : [expr]).every((e) => truthy(evalExpr(obj, e, options)))
const $or: ExprOp = (obj, expr, options) =>
  (Array.isArray(expr) ? expr : [expr]).some((e) => truthy(evalExpr(obj, e, options)))
const $not: ExprOp = (obj, expr, options) => !truthy(operands('$not', obj, expr, options, 1, 1)[0])

const $cond: ExprOp = (obj, expr, options) => {
  let spec: unknown[]
  if (Array.isArray(expr)) {
    if (expr.length !== 3) fail(16020, `Expression $cond takes exactly 3 arguments. ${expr.length} were passed in.`)
    spec = expr
  } else if (isPlainDoc(expr)) {
    for (const k of Object.keys(expr)) {
      if (!['if', 'then', 'else'].includes(k)) fail(17083, `Unrecognized parameter to $cond: ${k}`)
    }
    for (const k of ['if', 'then', 'else']) {
      if (!(k in expr)) fail(17080 + ['if', 'then', 'else'].indexOf(k), `Missing '${k}' parameter to $cond`)
    }
    spec = [expr.if, expr.then, expr.else]
  } else return fail(16020, 'Expression $cond takes exactly 3 arguments. 1 were passed in.')
  return evalExpr(obj, truthy(evalExpr(obj, spec[0], options)) ? spec[1] : spec[2], options)
}

const $switch: ExprOp = (obj, expr, options) => {
  if (!isPlainDoc(expr) || !Array.isArray(expr.branches)) return fail(40060, '$switch requires at least one branch.')
  for (const b of expr.branches as Array<Record<string, unknown>>) {
    if (!isPlainDoc(b) || !('case' in b) || !('then' in b)) {
      fail(40064, "$switch requires each branch have a 'case' expression and a 'then' expression")
    }
    if (truthy(evalExpr(obj, b.case, options))) return evalExpr(obj, b.then, options)
  }
  if (!('default' in expr)) {
    fail(40066, '$switch could not find a matching branch for an input, and no default was specified.')
  }
  return evalExpr(obj, expr.default, options)
}

/** mingo's $filter with the condition judged by mongod's truth. */
const $filter: ExprOp = (obj, expr, options) => {
  if (!isPlainDoc(expr)) return mingoExpr.$filter(obj, expr, options)
  const limit = expr.limit === undefined ? undefined : evalExpr(obj, expr.limit, options)
  return mingoExpr.$filter(
    obj,
    {
      ...expr,
      cond: { $__devdbTruth: expr.cond },
      ...(limit !== undefined ? { limit: numKind(limit) !== undefined ? toDouble(limit) : limit } : {})
    },
    options
  )
}

/** Internal: the truth of an expression as a JS boolean (only devdb's rewrites use it; users cannot name it). */
const devdbTruth: ExprOp = (obj, expr, options) => truthy(evalExpr(obj, expr, options))

const $in: ExprOp = (obj, expr, options) => {
  const [item, arr] = operands('$in', obj, expr, options, 2, 2)
  if (!Array.isArray(arr)) return fail(40081, `$in requires an array as a second argument, found: ${typeOf(arr)}`)
  const strCmp = collatorOf(options)
  return arr.some((v) => compareValues(v ?? null, item ?? null, strCmp) === 0)
}

const $indexOfArray: ExprOp = (obj, expr, options) => {
  const [arr, item, start, end] = operands('$indexOfArray', obj, expr, options, 2, 4)
  if (arr === null || arr === undefined) return null
  if (!Array.isArray(arr)) {
    return fail(40090, `$indexOfArray requires an array as a first argument, found: ${typeOf(arr)}`)
  }
  const from = start === undefined ? 0 : toDouble(start)
  const to = end === undefined ? arr.length : Math.min(toDouble(end), arr.length)
  const strCmp = collatorOf(options)
  for (let i = from; i < to; i++) if (compareValues(arr[i] ?? null, item ?? null, strCmp) === 0) return i
  return -1
}

/** Array operands of a set expression; null when one is null or missing (mongod). */
function setOperands (
  name: string,
  obj: unknown,
  expr: unknown,
  options: Options,
  min: number,
  max = Infinity
): unknown[][] | null {
  const args = operands(name, obj, expr, options, min, max)
  if (args.some((a) => a === null || a === undefined)) return null
  for (const a of args) {
    if (!Array.isArray(a)) fail(17044, `All operands of ${name} must be arrays. One argument is of type: ${typeOf(a)}`)
  }
  return args as unknown[][]
}

function distinctValues (values: unknown[]): Map<string, unknown> {
  const out = new Map<string, unknown>()
  for (const v of values) if (!out.has(keyString(v))) out.set(keyString(v), v)
  return out
}

const $setUnion: ExprOp = (obj, expr, options) => {
  const arrays = setOperands('$setUnion', obj, expr, options, 0)
  return arrays === null ? null : [...distinctValues(arrays.flat()).values()]
}

const $setIntersection: ExprOp = (obj, expr, options) => {
  const arrays = setOperands('$setIntersection', obj, expr, options, 0)
  if (arrays === null) return null
  if (arrays.length === 0) return []
  const rest = arrays.slice(1).map((a) => new Set(a.map(keyString)))
  return [...distinctValues(arrays[0]).entries()].filter(([k]) => rest.every((s) => s.has(k))).map(([, v]) => v)
}

const $setDifference: ExprOp = (obj, expr, options) => {
  const arrays = setOperands('$setDifference', obj, expr, options, 2, 2)
  if (arrays === null) return null
  const drop = new Set(arrays[1].map(keyString))
  return [...distinctValues(arrays[0]).entries()].filter(([k]) => !drop.has(k)).map(([, v]) => v)
}

const $setEquals: ExprOp = (obj, expr, options) => {
  const args = operands('$setEquals', obj, expr, options, 2)
  for (const a of args) {
    if (!Array.isArray(a)) {
      fail(17044, `All operands of $setEquals must be arrays. One argument is of type: ${typeOf(a)}`)
    }
  }
  const sets = (args as unknown[][]).map((a) => [...new Set(a.map(keyString))].sort().join('\u0000'))
  return sets.every((s) => s === sets[0])
}

const $setIsSubset: ExprOp = (obj, expr, options) => {
  const [a, b] = operands('$setIsSubset', obj, expr, options, 2, 2)
  if (!Array.isArray(a)) {
    fail(17046, `both operands of $setIsSubset must be arrays. First argument is of type: ${typeOf(a)}`)
  }
  if (!Array.isArray(b)) {
    fail(17042, `both operands of $setIsSubset must be arrays. Second argument is of type: ${typeOf(b)}`)
  }
  const superset = new Set((b as unknown[]).map(keyString))
  return (a as unknown[]).every((v) => superset.has(keyString(v)))
}

function elementsTruth (name: string, all: boolean): ExprOp {
  return (obj, expr, options) => {
    const [arr] = operands(name, obj, expr, options, 1, 1)
    if (!Array.isArray(arr)) {
      return fail(all ? 17040 : 17041, `${name}'s argument must be an array, but is ${typeOf(arr)}`)
    }
    return all ? arr.every(truthy) : arr.some(truthy)
  }
}

/** $sortArray: by BSON order (whole elements, or documents by a sort specification). */
const $sortArray: ExprOp = (obj, expr, options) => {
  if (!isPlainDoc(expr) || !('input' in expr) || !('sortBy' in expr)) {
    return fail(2980001, "$sortArray requires both 'input' and 'sortBy'")
  }
  const input = evalExpr(obj, expr.input, options)
  if (input === null || input === undefined) return null
  if (!Array.isArray(input)) {
    return fail(2942504, `The input argument to $sortArray must be an array, but was of type: ${typeOf(input)}`)
  }
  const strCmp = collatorOf(options)
  const by = expr.sortBy
  if (isPlainDoc(by)) return sortDocs(input.slice() as Array<Record<string, unknown>>, parseSort(by), undefined, strCmp)
  const dir = numKind(by) !== undefined ? Math.sign(toDouble(by)) : 0
  if (dir !== 1 && dir !== -1) return fail(2942505, '$sortArray sortBy must be either 1 or -1 or a document')
  return input.slice().sort((x, y) => dir * compareValues(x, y, strCmp))
}

export const valueExpressions: Record<string, ExprOp> = {
  $and,
  $or,
  $not,
  $cond,
  $switch,
  $filter,
  $__devdbTruth: devdbTruth,
  $in,
  $indexOfArray,
  $setUnion,
  $setIntersection,
  $setDifference,
  $setEquals,
  $setIsSubset,
  $allElementsTrue: elementsTruth('$allElementsTrue', true),
  $anyElementTrue: elementsTruth('$anyElementTrue', false),
  $sortArray
}

/**
 * mingo's remaining operators, by what they do with their operands:
 * - operands handed back (array slicing, object and variable operators, $ifNull…): untouched,
 *   except numeric position/count arguments, which mingo wants as JS numbers;
 * - a new value computed from the operands (strings, dates, booleans, sizes): the operands are
 *   given as plain JS numbers (see plain-values.ts) and the result is the operator's own.
 */
const PASS_THROUGH = new Set([
  '$arrayElemAt',
  '$arrayToObject',
  '$concatArrays',
  '$first',
  '$firstN',
  '$getField',
  '$ifNull',
  '$last',
  '$lastN',
  '$let',
  '$literal',
  '$map',
  '$mergeObjects',
  '$objectToArray',
  '$reduce',
  '$reverseArray',
  '$setField',
  '$slice',
  '$unsetField',
  '$zip'
])
/** An operand evaluated and handed to mingo as a literal JS number (positions and counts). */
const plainOperand = (obj: unknown, e: unknown, options: Options): unknown => ({
  $literal: plainNumber(evalExpr(obj, e, options))
})

/** Pass-through operators whose numeric position/count operands mingo needs as JS numbers. */
const NUMERIC_POSITIONS: Record<string, (expr: unknown, obj: unknown, options: Options) => unknown> = {
  $arrayElemAt: (expr, obj, options) => (Array.isArray(expr) ? [expr[0], plainOperand(obj, expr[1], options)] : expr),
  $slice: (expr, obj, options) =>
    Array.isArray(expr) ? [expr[0], ...expr.slice(1).map((e) => plainOperand(obj, e, options))] : expr,
  $firstN: (expr, obj, options) => (isPlainDoc(expr) ? { ...expr, n: plainOperand(obj, expr.n, options) } : expr),
  $lastN: (expr, obj, options) => (isPlainDoc(expr) ? { ...expr, n: plainOperand(obj, expr.n, options) } : expr)
}

/** Every mingo expression operator not replaced above, adapted as described. */
export function adaptedMingoExpressions (replaced: Set<string>): Record<string, ExprOp> {
  const out: Record<string, ExprOp> = {}
  for (const [name, inner] of Object.entries(mingoExpr)) {
    if (!name.startsWith('$') || replaced.has(name) || typeof inner !== 'function') continue
    if (PASS_THROUGH.has(name)) {
      const fix = NUMERIC_POSITIONS[name]
      out[name] = fix === undefined ? inner : (obj, expr, options) => inner(obj, fix(expr, obj, options), options)
    } else out[name] = (obj, expr, options) => inner(obj, plainLiterals(obj, expr, options), options)
  }
  return out
}
