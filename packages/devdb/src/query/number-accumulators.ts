/**
 * Accumulators over BSON values as mongod computes them: `$sum`/`$avg` with type promotion (an
 * int sum that overflows becomes a long, a long sum a double; decimals stay decimal), `$min`/
 * `$max` and the `N` variants by BSON order, `$addToSet` by value, the statistics as doubles.
 * Each also serves the expression form (mingo hands the evaluated array with a null `expr`).
 */
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { CommandError, Codes } from '../errors.js'
import { compareValues } from '../bson/bson-order.js'
import { keyString } from '../bson/key-string.js'
import { isPlainDoc } from '../bson/paths.js'
import {
  Dec,
  compareNumbers,
  decimalScale,
  makeDecimal,
  makeDouble,
  makeInteger,
  numKind,
  toBig,
  toDec,
  toDouble,
  widest,
  type NumKind
} from '../bson/numeric.js'
import { collatorOf } from '../collation/collation.js'
import { fail, mingoAcc, typeOf, type AccOp, type ExprOp } from './operator-kit.js'

/** The values an accumulator folds: each group member's evaluated `expr`, or the array itself in expression form. */
function values (coll: unknown[], expr: unknown, options: Options): unknown[] {
  return expr === null || expr === undefined ? coll : (mingoAcc.$push(coll, expr, options) as unknown[])
}

/** Numeric total in the widest type met: integers exact, doubles compensated (Neumaier), decimals at 34 digits. */
class NumberSum {
  kind: NumKind = 'int'
  count = 0
  private ints = 0n
  private sum = 0
  private comp = 0
  private dec: Dec | undefined
  /** Fraction digits an exact decimal total keeps (the operands' largest; unknown once a double joins). */
  private scale: number | undefined = 0

  add (v: unknown): void {
    const k = numKind(v)
    if (k === undefined) return
    this.count++
    const s = decimalScale(v)
    this.scale = s === undefined || this.scale === undefined ? undefined : Math.max(this.scale, s)
    this.kind = widest(this.kind, k)
    if (k === 'int' || k === 'long') this.ints += toBig(v)
    else if (k === 'decimal') this.dec = (this.dec ?? new Dec(0)).plus(toDec(v))
    else {
      const x = toDouble(v)
      const t = this.sum + x
      this.comp += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum
      this.sum = t
    }
  }

  private double (): number {
    return Number(this.ints) + this.sum + this.comp
  }

  total (): unknown {
    switch (this.kind) {
      case 'decimal':
        return makeDecimal(
          (this.dec ?? new Dec(0)).plus(new Dec(this.ints.toString())).plus(new Dec(this.sum + this.comp)),
          this.scale
        )
      case 'double':
        return makeDouble(this.double())
      default:
        return makeInteger(this.ints, this.kind, 'double')
    }
  }

  average (): unknown {
    if (this.count === 0) return null
    if (this.kind === 'decimal') return makeDecimal(toDec(this.total()).dividedBy(this.count))
    return makeDouble((this.kind === 'double' ? this.double() : Number(this.ints)) / this.count)
  }
}

function summed (coll: unknown[], expr: unknown, options: Options): NumberSum {
  const s = new NumberSum()
  for (const v of values(coll, expr, options)) s.add(v)
  return s
}

function extreme (dir: 1 | -1): AccOp {
  return (coll, expr, options) => {
    const strCmp = collatorOf(options)
    let best: unknown = null
    for (const v of values(coll, expr, options)) {
      if (v === null || v === undefined) continue
      if (best === null || dir * compareValues(v, best, strCmp) > 0) best = v
    }
    return best
  }
}

function stdDev (sample: boolean): AccOp {
  return (coll, expr, options) => {
    // Welford's online algorithm on the values as doubles, as mongod's accumulator does.
    let n = 0
    let mean = 0
    let m2 = 0
    for (const v of values(coll, expr, options)) {
      if (numKind(v) === undefined) continue
      const x = toDouble(v)
      n++
      const delta = x - mean
      mean += delta / n
      m2 += delta * (x - mean)
    }
    if (n === 0 || (sample && n < 2)) return null
    return makeDouble(Math.sqrt(m2 / (sample ? n - 1 : n)))
  }
}

const $addToSet: AccOp = (coll, expr, options) => {
  const seen = new Map<string, unknown>()
  for (const v of values(coll, expr, options)) {
    if (v === undefined) continue
    const k = keyString(v)
    if (!seen.has(k)) seen.set(k, v)
  }
  return [...seen.values()]
}

function nCount (n: unknown): number {
  if (numKind(n) === undefined || !Number.isInteger(toDouble(n))) {
    fail(5787902, `Value for 'n' must be of integral type, but found ${String(n)}`)
  }
  const k = toDouble(n)
  if (k < 1) fail(5787908, `'n' must be greater than 0, found ${k}`)
  return k
}

/** The `n` first non-null values in BSON order (`dir` 1) or reverse order (-1). */
function topValues (list: unknown[], n: number, dir: 1 | -1, strCmp?: (a: string, b: string) => number): unknown[] {
  return list
    .filter((v) => v !== null && v !== undefined)
    .sort((x, y) => dir * compareValues(x, y, strCmp))
    .slice(0, n)
}

function extremesN (name: '$maxN' | '$minN'): AccOp {
  return (coll, expr, options) => {
    const spec = expr as Record<string, unknown>
    const n = nCount(evalExpr((options as { local?: { groupId?: unknown } }).local?.groupId, spec.n, options))
    return topValues(values(coll, spec.input, options), n, name === '$maxN' ? -1 : 1, collatorOf(options))
  }
}

function percentiles (name: string, spec: unknown): number[] {
  if (!isPlainDoc(spec) || !('input' in spec) || !('method' in spec)) {
    throw new CommandError(
      40414,
      'Location40414',
      `BSON field '${name}.${!isPlainDoc(spec) || !('input' in spec) ? 'input' : 'method'}' is missing but a required field`
    )
  }
  if (spec.method !== 'approximate') {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      "Currently only 'approximate' can be used as percentile 'method'"
    )
  }
  if (name === '$median') return [0.5]
  const p = spec.p
  if (
    !Array.isArray(p) ||
    p.length === 0 ||
    p.some((x) => numKind(x) === undefined || toDouble(x) < 0 || toDouble(x) > 1)
  ) {
    throw new CommandError(
      7750301,
      'Location7750301',
      "The $percentile 'p' field must be an array of numbers from [0.0, 1.0]"
    )
  }
  return p.map(toDouble)
}

/** $percentile/$median ('approximate', mongod 7.0's only method): the nearest-rank value of the numeric inputs, as a double. */
function percentileOf (name: '$percentile' | '$median'): AccOp {
  return (coll, expr, options) => {
    const ps = percentiles(name, expr)
    const xs = values(coll, (expr as Record<string, unknown>).input, options)
      .filter((v) => numKind(v) !== undefined)
      .sort(compareNumbers)
    const out = ps.map((p) =>
      xs.length === 0 ? null : makeDouble(toDouble(xs[Math.max(0, Math.ceil(p * xs.length) - 1)]))
    )
    return name === '$median' ? out[0] : out
  }
}

export const numberAccumulators: Record<string, AccOp> = {
  $sum: (coll, expr, options) => summed(coll, expr, options).total(),
  $avg: (coll, expr, options) => summed(coll, expr, options).average(),
  $max: extreme(1),
  $min: extreme(-1),
  $stdDevPop: stdDev(false),
  $stdDevSamp: stdDev(true),
  $addToSet,
  $maxN: extremesN('$maxN'),
  $minN: extremesN('$minN'),
  $median: percentileOf('$median'),
  $percentile: percentileOf('$percentile')
}

/**
 * The expression forms of $median/$percentile (an array `input` in the current document); in a
 * $group mingo calls the expression operator with the group's documents, which go to the accumulator.
 */
function percentileExpression (name: '$percentile' | '$median'): ExprOp {
  const acc = numberAccumulators[name]
  return (obj, expr, options) => {
    if (Array.isArray(obj)) return acc(obj, expr, options)
    const input = isPlainDoc(expr) ? evalExpr(obj, expr.input, options) : undefined
    const list = Array.isArray(input) ? input : input === null || input === undefined ? [] : [input]
    return acc(list, { ...(expr as Record<string, unknown>), input: '$$CURRENT' }, options)
  }
}

/** $maxN/$minN as expressions: the n largest/smallest non-null elements of an array. */
function extremesNExpression (name: '$maxN' | '$minN'): ExprOp {
  const acc = numberAccumulators[name]
  return (obj, expr, options) => {
    if (Array.isArray(obj)) return acc(obj, expr, options)
    if (!isPlainDoc(expr) || !('input' in expr) || !('n' in expr)) {
      return fail(5787900, `${name} requires 'input' and 'n'`)
    }
    const input = evalExpr(obj, expr.input, options)
    const n = nCount(evalExpr(obj, expr.n, options))
    if (input === null || input === undefined) return null
    if (!Array.isArray(input)) return fail(5788200, `Input to ${name} must be an array, found: ${typeOf(input)}`)
    return topValues(input, n, name === '$maxN' ? -1 : 1, collatorOf(options))
  }
}

/** Expression operators that double as accumulators (mingo resolves the expression table first, also inside $group). */
export const accumulatorExpressions: Record<string, ExprOp> = {
  $median: percentileExpression('$median'),
  $percentile: percentileExpression('$percentile'),
  $maxN: extremesNExpression('$maxN'),
  $minN: extremesNExpression('$minN')
}
