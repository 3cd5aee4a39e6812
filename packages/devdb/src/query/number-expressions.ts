/**
 * Aggregation expressions whose answer depends on BSON number types, as mongod computes them:
 * arithmetic with its type promotion (engine/numeric.ts), the double-valued math functions,
 * conversions to int/long/double/decimal, `$type`, bitwise operators. (mingo computes with JS
 * numbers only and skips or mangles Long, Decimal128 and integral doubles.)
 */
import type { Decimal } from 'decimal.js'
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { CommandError } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import {
  Dec,
  arith,
  asKind,
  inInt64,
  isZero,
  makeDecimal,
  makeDouble,
  makeInteger,
  makeLong,
  numKind,
  remainder,
  toBig,
  toDec,
  toDouble,
  widest,
  type ArithOp,
  type NumKind
} from '../bson/numeric.js'
import { deepPlain } from './plain-values.js'
import { fail, mingoExpr, operands, typeOf, type ExprOp } from './operator-kit.js'

const isNullish = (v: unknown): boolean => v === null || v === undefined
const isNum = (v: unknown): boolean => numKind(v) !== undefined

// ---- arithmetic -------------------------------------------------------------------------------

/** $add / $multiply: any number of numeric operands ($add: at most one date). */
function sumOrProduct (name: '$add' | '$multiply', op: ArithOp, code: number): ExprOp {
  return (obj, expr, options) => {
    const args = operands(name, obj, expr, options)
    let acc: unknown = op === '+' ? 0 : 1
    let date: Date | undefined
    for (const a of args) {
      if (isNullish(a)) return null
      if (a instanceof Date && name === '$add') {
        if (date !== undefined) fail(16612, 'only one date allowed in an $add expression')
        date = a
        continue
      }
      if (!isNum(a)) {
        fail(code, `${name} only supports numeric${name === '$add' ? ' or date' : ''} types, not ${typeOf(a)}`)
      }
      acc = arith(op, acc, a)
    }
    // Date arithmetic is in milliseconds; a fractional sum is rounded as mongod does.
    return date === undefined ? acc : new Date(date.getTime() + Math.round(toDouble(acc)))
  }
}

const $subtract: ExprOp = (obj, expr, options) => {
  const [a, b] = operands('$subtract', obj, expr, options, 2, 2)
  if (isNullish(a) || isNullish(b)) return null
  if (a instanceof Date) {
    if (b instanceof Date) return makeLong(BigInt(a.getTime() - b.getTime()))
    if (isNum(b)) return new Date(a.getTime() - Math.round(toDouble(b)))
  } else if (isNum(a) && isNum(b)) return arith('-', a, b)
  return fail(16556, `can't $subtract ${typeOf(b)} from ${typeOf(a)}`)
}

const $divide: ExprOp = (obj, expr, options) => {
  const [a, b] = operands('$divide', obj, expr, options, 2, 2)
  if (isNullish(a) || isNullish(b)) return null
  if (!isNum(a) || !isNum(b)) fail(16609, `$divide only supports numeric types, not ${typeOf(a)} and ${typeOf(b)}`)
  if (isZero(b)) fail(2, "can't $divide by zero")
  if (numKind(a) === 'decimal' || numKind(b) === 'decimal') return makeDecimal(toDec(a).dividedBy(toDec(b)))
  return makeDouble(toDouble(a) / toDouble(b))
}

const $mod: ExprOp = (obj, expr, options) => {
  const [a, b] = operands('$mod', obj, expr, options, 2, 2)
  if (isNullish(a) || isNullish(b)) return null
  if (!isNum(a) || !isNum(b)) fail(16611, `$mod only supports numeric types, not ${typeOf(a)} and ${typeOf(b)}`)
  if (isZero(b)) fail(16610, "can't $mod by zero")
  return remainder(a, b)
}

/** One numeric operand: null stays null, anything else non-numeric is 28765. */
function oneNumber (name: string, fn: (v: unknown, kind: NumKind) => unknown): ExprOp {
  return (obj, expr, options) => {
    const [v] = operands(name, obj, expr, options, 1, 1)
    if (isNullish(v)) return null
    const kind = numKind(v)
    if (kind === undefined) return fail(28765, `${name} only supports numeric types, not ${typeOf(v)}`)
    return fn(v, kind)
  }
}

const $abs = oneNumber('$abs', (v, kind) => {
  if (kind === 'decimal') return makeDecimal(toDec(v).abs())
  if (kind === 'double') return makeDouble(Math.abs(toDouble(v)))
  const b = toBig(v)
  if (b === -(2n ** 63n)) fail(28680, "can't take $abs of long long min")
  return makeInteger(b < 0n ? -b : b, kind, 'double')
})

/** $ceil/$floor: integers are already there; doubles and decimals keep their type. */
function integral (name: string, math: (n: number) => number, mode: Decimal.Rounding): ExprOp {
  return oneNumber(name, (v, kind) => {
    if (kind === 'decimal') return makeDecimal(toDec(v).toDecimalPlaces(0, mode))
    if (kind === 'double') return makeDouble(math(toDouble(v)))
    return v
  })
}

/** Double-valued functions of numbers (a decimal operand gives a decimal where decimal.js has the function). */
function doubleFn (
  name: string,
  fn: (n: number) => number,
  check?: (n: number) => void,
  decimal?: (d: Dec) => Dec
): ExprOp {
  return oneNumber(name, (v, kind) => {
    const n = toDouble(v)
    if (check !== undefined && !Number.isNaN(n)) check(n)
    if (kind === 'decimal' && decimal !== undefined) return makeDecimal(decimal(toDec(v)))
    return makeDouble(fn(n))
  })
}

const $sqrt = doubleFn(
  '$sqrt',
  Math.sqrt,
  (n) => {
    if (n < 0) fail(28714, "$sqrt's argument must be greater than or equal to 0")
  },
  (d) => d.sqrt()
)
const $exp = doubleFn('$exp', Math.exp, undefined, (d) => d.exp())
const $ln = doubleFn(
  '$ln',
  Math.log,
  (n) => {
    if (n <= 0) fail(28766, `$ln's argument must be a positive number, but is ${n}`)
  },
  (d) => d.ln()
)
const $log10 = doubleFn(
  '$log10',
  Math.log10,
  (n) => {
    if (n <= 0) fail(28761, `$log10's argument must be a positive number, but is ${n}`)
  },
  (d) => d.log(10)
)

const $log: ExprOp = (obj, expr, options) => {
  const [v, base] = operands('$log', obj, expr, options, 2, 2)
  if (isNullish(v) || isNullish(base)) return null
  if (!isNum(v)) fail(28756, `$log's argument must be numeric, not ${typeOf(v)}`)
  if (!isNum(base)) fail(28757, `$log's base must be numeric, not ${typeOf(base)}`)
  const n = toDouble(v)
  const b = toDouble(base)
  if (n <= 0) fail(28758, `$log's argument must be a positive number, but is ${n}`)
  if (b <= 0 || b === 1) fail(28759, `$log's base must be a positive number not equal to 1, but is ${b}`)
  if (numKind(v) === 'decimal' || numKind(base) === 'decimal') return makeDecimal(Dec.log(toDec(v), toDec(base)))
  return makeDouble(Math.log(n) / Math.log(b))
}

const $pow: ExprOp = (obj, expr, options) => {
  const [base, exp] = operands('$pow', obj, expr, options, 2, 2)
  if (isNullish(base) || isNullish(exp)) return null
  if (!isNum(base)) fail(28762, `$pow's base must be numeric, not ${typeOf(base)}`)
  if (!isNum(exp)) fail(28763, `$pow's exponent must be numeric, not ${typeOf(exp)}`)
  if (isZero(base) && toDouble(exp) < 0) fail(28764, '$pow cannot take a base of 0 and a negative exponent')
  const kind = widest(numKind(base)!, numKind(exp)!)
  if (kind === 'decimal') return makeDecimal(toDec(base).pow(toDec(exp)))
  if (kind === 'double') return makeDouble(Math.pow(toDouble(base), toDouble(exp)))
  // Integers: exact while the result fits the operands' widest type (an int result past int32 is a long), else a double.
  const b = toBig(base)
  const e = toBig(exp)
  if (e < 0n) {
    if (b === 1n || b === -1n) return makeInteger(b === -1n && e % 2n !== 0n ? -1n : 1n, kind, 'double')
    return makeDouble(Math.pow(Number(b), Number(e)))
  }
  if (e <= 64n || b === 0n || b === 1n || b === -1n) {
    const r = b ** (e > 64n ? (e % 2n === 0n ? 2n : 1n) : e)
    if (inInt64(r)) return makeInteger(r, kind, 'double')
  }
  return makeDouble(Math.pow(Number(b), Number(e)))
}

/** $round (half to even) / $trunc (towards zero) at `place` decimal places (−20…100). */
function rounding (name: '$round' | '$trunc'): ExprOp {
  const mode = name === '$round' ? Dec.ROUND_HALF_EVEN : Dec.ROUND_DOWN
  return (obj, expr, options) => {
    const [v, placeArg] = operands(name, obj, expr, options, 1, 2)
    if (isNullish(v) || placeArg === null) return null
    const kind = numKind(v)
    if (kind === undefined) return fail(51081, `${name} only supports numeric types, not ${typeOf(v)}`)
    let place = 0
    if (placeArg !== undefined) {
      if (!isNum(placeArg) || !Number.isInteger(toDouble(placeArg))) {
        fail(51082, `precision argument to  ${name} must be a integral value`)
      }
      place = toDouble(placeArg)
      if (place < -20 || place > 100) fail(51083, `cannot set precision argument for ${name} below -20 or above 100`)
    }
    if (kind === 'double' && !Number.isFinite(toDouble(v))) return v
    if ((kind === 'int' || kind === 'long') && place >= 0) return v
    const d = toDec(v)
    if (d.isNaN() || !d.isFinite()) return v
    const scale = new Dec(10).pow(-place)
    const r = place >= 0 ? d.toDecimalPlaces(place, mode) : d.dividedBy(scale).toDecimalPlaces(0, mode).times(scale)
    if (kind === 'decimal') return makeDecimal(r)
    if (kind === 'double') return makeDouble(r.toNumber())
    return makeInteger(BigInt(r.toFixed(0)), kind, 'double')
  }
}

// ---- conversions ------------------------------------------------------------------------------

const conversionFailure = (msg: string): never => {
  throw new CommandError(241, 'ConversionFailure', msg)
}

const TYPE_CODES: Record<string, string> = {
  1: 'double',
  2: 'string',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  16: 'int',
  18: 'long',
  19: 'decimal'
}

/** A string in mongod's number syntax (`$toInt` and `$toLong` take base-10 integers only). */
function parseNumberString (s: string, target: NumKind): unknown {
  const t = s.trim() === s ? s : ''
  if (target === 'int' || target === 'long') {
    if (!/^[+-]?\d+$/.test(t)) {
      conversionFailure(
        `Failed to parse number '${s}' in $convert with no onError value: Did not consume whole string.`
      )
    }
    return toTarget(BigInt(t), 'long', target)
  }
  if (/^[+-]?(inf(inity)?|nan)$/i.test(t)) {
    return toTarget(Number(t.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity').replace(/nan/i, 'NaN')), 'double', target)
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    conversionFailure(`Failed to parse number '${s}' in $convert with no onError value: Did not consume whole string.`)
  }
  return target === 'decimal' ? makeDecimal(new Dec(t)) : makeDouble(Number(t))
}

/** Converts a number (as BigInt, JS number or numeric BSON value) to `target`, failing on overflow like mongod. */
function toTarget (v: unknown, from: NumKind, target: NumKind): unknown {
  if (target === 'double') return makeDouble(toDouble(v))
  if (target === 'decimal') return makeDecimal(toDec(v))
  let b: bigint
  if (from === 'double' || from === 'decimal') {
    const d = toDec(v)
    if (!d.isFinite()) {
      conversionFailure(
        `Attempt to convert ${d.isNaN() ? 'NaN' : 'infinity'} value to integer type in $convert with no onError value`
      )
    }
    b = BigInt(d.trunc().toFixed(0))
  } else b = toBig(v)
  const ok = target === 'int' ? b >= -2147483648n && b <= 2147483647n : inInt64(b)
  if (!ok) conversionFailure(`Conversion would overflow target type in $convert with no onError value: ${String(v)}`)
  return target === 'int' ? Number(b) : makeLong(b)
}

function convertNumber (v: unknown, target: NumKind): unknown {
  if (isNullish(v)) return null
  const kind = numKind(v)
  if (kind !== undefined) return toTarget(v, kind, target)
  if (typeof v === 'boolean') return asKind(target, v ? 1 : 0)
  if (typeof v === 'string') return parseNumberString(v, target)
  if (v instanceof Date) {
    if (target === 'int') conversionFailure('Unsupported conversion from date to int in $convert with no onError value')
    return asKind(target, target === 'long' ? BigInt(v.getTime()) : v.getTime())
  }
  return conversionFailure(`Unsupported conversion from ${typeOf(v)} to ${target} in $convert with no onError value`)
}

function toNumberOp (name: string, target: NumKind): ExprOp {
  return (obj, expr, options) => convertNumber(operands(name, obj, expr, options, 1, 1)[0], target)
}

const $toString: ExprOp = (obj, expr, options) => {
  const [v] = operands('$toString', obj, expr, options, 1, 1)
  const kind = numKind(v)
  if (kind === 'long' || kind === 'decimal') return String(v)
  if (kind !== undefined) return String(toDouble(v))
  return mingoExpr.$toString(obj, { $literal: v }, options)
}

/** $convert: numeric targets here, the others by mingo on the plain value; onError and onNull as mongod. */
const $convert: ExprOp = (obj, expr, options) => {
  if (!isPlainDoc(expr) || !('input' in expr) || !('to' in expr)) fail(2, "$convert requires both 'input' and 'to'")
  const spec = expr as Record<string, unknown>
  const input = evalExpr(obj, spec.input, options)
  if (isNullish(input)) return 'onNull' in spec ? evalExpr(obj, spec.onNull, options) : null
  const toValue = evalExpr(obj, spec.to, options)
  const to = isNum(toValue) ? TYPE_CODES[String(toDouble(toValue))] : toValue
  if (typeof to !== 'string') {
    return fail(2, `$convert's 'to' argument must be a string or number, but is ${typeOf(toValue)}`)
  }
  try {
    if (to === 'int' || to === 'long' || to === 'double' || to === 'decimal') return convertNumber(input, to)
    if (to === 'string') return $toString(obj, { $literal: input }, options)
    return mingoExpr.$convert(obj, { input: { $literal: deepPlain(input) }, to }, options)
  } catch (err) {
    if ('onError' in spec) return evalExpr(obj, spec.onError, options)
    throw err
  }
}

// ---- bitwise ----------------------------------------------------------------------------------

function bitwise (name: string, fold: (a: bigint, b: bigint) => bigint, start: bigint): ExprOp {
  return (obj, expr, options) => {
    const args = operands(name, obj, expr, options)
    let acc = start
    let kind: 'int' | 'long' = 'int'
    for (const a of args) {
      if (isNullish(a)) return null
      const k = numKind(a)
      if (k !== 'int' && k !== 'long') return fail(28765, `${name} only supports int and long operands.`)
      if (k === 'long') kind = 'long'
      acc = fold(acc, toBig(a))
    }
    return kind === 'int' ? Number(BigInt.asIntN(32, acc)) : makeLong(BigInt.asIntN(64, acc))
  }
}

const $bitNot: ExprOp = (obj, expr, options) => {
  const [v] = operands('$bitNot', obj, expr, options, 1, 1)
  if (isNullish(v)) return null
  const k = numKind(v)
  if (k !== 'int' && k !== 'long') return fail(28765, '$bitNot only supports int and long operands.')
  return k === 'int' ? Number(BigInt.asIntN(32, ~toBig(v))) : makeLong(BigInt.asIntN(64, ~toBig(v)))
}

// ---- the table --------------------------------------------------------------------------------

/** Double-valued functions mingo computes correctly on plain numbers; only the result's type needs fixing. */
const DOUBLE_RESULT = [
  '$sin',
  '$cos',
  '$tan',
  '$asin',
  '$acos',
  '$atan',
  '$atan2',
  '$asinh',
  '$acosh',
  '$atanh',
  '$sinh',
  '$cosh',
  '$tanh',
  '$degreesToRadians',
  '$radiansToDegrees',
  '$sigmoid',
  '$rand'
]

function doubleResult (name: string): ExprOp {
  const inner = mingoExpr[name]
  return (obj, expr, options) => {
    const v = inner(obj, plainLiterals(obj, expr, options), options)
    return typeof v === 'number' ? makeDouble(v) : v
  }
}

/** `expr` evaluated and handed back as literals of plain numbers (mingo's operators test `typeof === 'number'`). */
export function plainLiterals (obj: unknown, expr: unknown, options: Options): unknown {
  if (Array.isArray(expr)) return expr.map((e) => ({ $literal: deepPlain(evalExpr(obj, e, options)) }))
  if (isPlainDoc(expr) && !Object.keys(expr).some((k) => k.startsWith('$'))) {
    return Object.fromEntries(
      Object.entries(expr).map(([k, e]) => [k, { $literal: deepPlain(evalExpr(obj, e, options)) }])
    )
  }
  return { $literal: deepPlain(evalExpr(obj, expr, options)) }
}

/** Operators whose mingo results are integers mongod types as longs. */
function longResult (_name: string, inner: ExprOp): ExprOp {
  return (obj, expr, options) => {
    const v = inner(obj, expr, options)
    return typeof v === 'number' && Number.isInteger(v) ? makeLong(BigInt(v)) : v
  }
}

export const numberExpressions: Record<string, ExprOp> = {
  $add: sumOrProduct('$add', '+', 16554),
  $multiply: sumOrProduct('$multiply', '*', 16555),
  $subtract,
  $divide,
  $mod,
  $abs,
  $ceil: integral('$ceil', Math.ceil, Dec.ROUND_CEIL),
  $floor: integral('$floor', Math.floor, Dec.ROUND_FLOOR),
  $round: rounding('$round'),
  $trunc: rounding('$trunc'),
  $sqrt,
  $exp,
  $ln,
  $log,
  $log10,
  $pow,
  $toInt: toNumberOp('$toInt', 'int'),
  $toLong: toNumberOp('$toLong', 'long'),
  $toDouble: toNumberOp('$toDouble', 'double'),
  $toDecimal: toNumberOp('$toDecimal', 'decimal'),
  $toString,
  $convert,
  $type: (obj, expr, options) => typeOf(operands('$type', obj, expr, options, 1, 1)[0]),
  $isNumber: (obj, expr, options) => isNum(operands('$isNumber', obj, expr, options, 1, 1)[0]),
  $bitAnd: bitwise('$bitAnd', (a, b) => a & b, -1n),
  $bitOr: bitwise('$bitOr', (a, b) => a | b, 0n),
  $bitXor: bitwise('$bitXor', (a, b) => a ^ b, 0n),
  $bitNot,
  $dateDiff: longResult('$dateDiff', (obj, expr, options) =>
    mingoExpr.$dateDiff(obj, plainLiterals(obj, expr, options), options)
  ),
  ...Object.fromEntries(
    DOUBLE_RESULT.filter((n) => typeof mingoExpr[n] === 'function').map((n) => [n, doubleResult(n)])
  )
}
