/**
 * BSON numbers as devdb holds them, and MongoDB's arithmetic on them.
 *
 * In memory an int32 is a JS number, an int64 a bson `Long`, a decimal128 a bson `Decimal128`,
 * and a double a JS number — except an integral double in the int32 range, which stays a bson
 * `Double`: bson writes a JS number back as int32 exactly when it is an integer in that range
 * (and not -0), so that wrapper is what keeps `1.0` a double end to end. Every value therefore
 * goes back to the client with the type it came in with.
 *
 * Arithmetic follows mongod's promotion: int < long < double < decimal, the widest operand
 * decides; int32 results that overflow become longs, longs that overflow become doubles in
 * aggregation and an error in updates (`SafeNum`). Integers are computed as BigInt (exact over
 * the whole int64 range), decimals with decimal.js at decimal128's 34 digits, half-even.
 */
import { Decimal128, Double, Long } from 'bson'
import { Decimal } from 'decimal.js'

export type NumKind = 'int' | 'long' | 'double' | 'decimal'

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const TWO_63 = 2 ** 63

/** decimal128's precision and rounding (IEEE 754-2008, as mongod's Decimal128 arithmetic). */
export const Dec = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -6176, toExpPos: 6144 })
export type Dec = Decimal

/** A JS number bson would serialize as int32 (and that therefore means "int"). */
export function isInt32Value (n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX && !Object.is(n, -0)
}

const RANK: Record<NumKind, number> = { int: 0, long: 1, double: 2, decimal: 3 }

export function numKind (v: unknown): NumKind | undefined {
  if (typeof v === 'number') return isInt32Value(v) ? 'int' : 'double'
  if (typeof v !== 'object') return undefined
  switch ((v as { _bsontype?: string } | null)?._bsontype) {
    case 'Double':
      return 'double'
    case 'Int32':
      return 'int'
    case 'Long':
      return 'long'
    case 'Decimal128':
      return 'decimal'
  }
  return undefined
}

export function widest (...kinds: NumKind[]): NumKind {
  let k: NumKind = 'int'
  for (const x of kinds) if (RANK[x] > RANK[k]) k = x
  return k
}

/** Integer value of an int or long (callers check the kind). */
export function toBig (v: unknown): bigint {
  if (typeof v === 'number') return BigInt(v)
  if (v instanceof Long) return v.toBigInt()
  return BigInt((v as { valueOf: () => number }).valueOf())
}

/** Value as a JS double (rounded for wide longs and decimals). */
export function toDouble (v: unknown): number {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (v instanceof Long) return v.toNumber()
  if (v instanceof Decimal128) return Number(v.toString())
  const t = v as { _bsontype?: string; valueOf: () => number }
  if (t._bsontype === 'Double' || t._bsontype === 'Int32') return t.valueOf()
  return NaN
}

export function toDec (v: unknown): Dec {
  if (v instanceof Decimal128) return new Dec(v.toString())
  if (v instanceof Long) return new Dec(v.toString())
  return new Dec(toDouble(v))
}

/** A double as stored: a JS number, or a `Double` where a number would go back as int32. */
export function makeDouble (n: number): number | Double {
  return isInt32Value(n) ? new Double(n) : n
}

export function makeLong (b: bigint): Long {
  return Long.fromBigInt(b)
}

/**
 * A decimal as stored. `scale` is the number of fraction digits IEEE 754 decimal arithmetic
 * keeps for an exact result (its "ideal exponent": `1.10 + 1` is `2.10`); decimal.js itself
 * drops trailing zeros.
 */
export function makeDecimal (d: Dec, scale?: number): Decimal128 {
  if (
    scale !== undefined &&
    d.isFinite() &&
    d.decimalPlaces() <= scale &&
    scale >= 0 &&
    d.precision(true) + scale - d.decimalPlaces() <= 34
  ) {
    return Decimal128.fromString(d.toFixed(scale))
  }
  return Decimal128.fromStringWithRounding(d.toString())
}

/** Fraction digits of a decimal as written (`1.10` → 2, `1E+2` → -2) or of an integer (0); undefined for doubles. */
export function decimalScale (v: unknown): number | undefined {
  const k = numKind(v)
  if (k === 'int' || k === 'long') return 0
  if (k !== 'decimal') return undefined
  const m = /^-?(\d+)(?:\.(\d+))?(?:E([+-]?\d+))?$/i.exec(String(v))
  if (m === null) return undefined
  return (m[2]?.length ?? 0) - Number(m[3] ?? 0)
}

export const inInt64 = (b: bigint): boolean => b >= INT64_MIN && b <= INT64_MAX

/**
 * An integer result of kind `kind` (int or long): an int stays an int while it fits, else it
 * becomes a long; past int64, `overflow` decides (aggregation: a double; updates: an error).
 */
export function makeInteger (b: bigint, kind: 'int' | 'long', overflow: 'double' | (() => never)): unknown {
  if (kind === 'int' && b >= BigInt(INT32_MIN) && b <= BigInt(INT32_MAX)) return Number(b)
  if (inInt64(b)) return makeLong(b)
  return overflow === 'double' ? makeDouble(Number(b)) : overflow()
}

/** A value of `kind` with the numeric value of `v` (no range checks: callers convert within range). */
export function asKind (kind: NumKind, v: unknown): unknown {
  switch (kind) {
    case 'int':
      return Number(toBig(v))
    case 'long':
      return makeLong(toBig(v))
    case 'double':
      return makeDouble(toDouble(v))
    case 'decimal':
      return v instanceof Decimal128 ? v : makeDecimal(toDec(v))
  }
}

export type ArithOp = '+' | '-' | '*'

/** `a op b` with mongod's type promotion; both operands numeric. */
export function arith (op: ArithOp, a: unknown, b: unknown, overflow: 'double' | (() => never) = 'double'): unknown {
  const kind = widest(numKind(a)!, numKind(b)!)
  switch (kind) {
    case 'decimal': {
      const x = toDec(a)
      const y = toDec(b)
      const sa = decimalScale(a)
      const sb = decimalScale(b)
      const scale = sa === undefined || sb === undefined ? undefined : op === '*' ? sa + sb : Math.max(sa, sb)
      return makeDecimal(op === '+' ? x.plus(y) : op === '-' ? x.minus(y) : x.times(y), scale)
    }
    case 'double': {
      const x = toDouble(a)
      const y = toDouble(b)
      return makeDouble(op === '+' ? x + y : op === '-' ? x - y : x * y)
    }
    default: {
      const x = toBig(a)
      const y = toBig(b)
      return makeInteger(op === '+' ? x + y : op === '-' ? x - y : x * y, kind, overflow)
    }
  }
}

/** Remainder with the dividend's sign (C's fmod), in the promoted type; `b` is not zero. */
export function remainder (a: unknown, b: unknown): unknown {
  const kind = widest(numKind(a)!, numKind(b)!)
  if (kind === 'decimal') return makeDecimal(toDec(a).mod(toDec(b)))
  if (kind === 'double') return makeDouble(toDouble(a) % toDouble(b))
  return makeInteger(toBig(a) % toBig(b), kind, 'double')
}

export function isZero (v: unknown): boolean {
  const k = numKind(v)
  if (k === 'decimal') return toDec(v).isZero()
  if (k === 'long') return toBig(v) === 0n
  return k !== undefined && toDouble(v) === 0
}

/** Exact comparison of an integer with a double (NaN lowest, as mongod orders numbers). */
function compareBigDouble (x: bigint, d: number): number {
  if (Number.isNaN(d)) return 1
  if (d >= TWO_63) return -1
  if (d < -TWO_63) return 1
  const floor = Math.floor(d)
  const f = BigInt(floor)
  if (x !== f) return x < f ? -1 : 1
  return d > floor ? -1 : 0
}

function cmp (a: number | bigint, b: number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Numeric comparison across int, long, double and decimal by value; exact for int/long/double
 * (a long past 2^53 against a double included), NaN below every other number and equal to NaN.
 */
export function compareNumbers (a: unknown, b: unknown): number {
  const ka = numKind(a)!
  const kb = numKind(b)!
  if (ka === 'decimal' || kb === 'decimal') {
    const x = toDec(a)
    const y = toDec(b)
    if (x.isNaN() || y.isNaN()) return x.isNaN() ? (y.isNaN() ? 0 : -1) : 1
    return x.comparedTo(y)
  }
  const ia = ka === 'int' || ka === 'long'
  const ib = kb === 'int' || kb === 'long'
  if (ia && ib) return ka === 'int' && kb === 'int' ? cmp(toDouble(a), toDouble(b)) : cmp(toBig(a), toBig(b))
  if (ia) return compareBigDouble(toBig(a), toDouble(b))
  if (ib) return -compareBigDouble(toBig(b), toDouble(a))
  const x = toDouble(a)
  const y = toDouble(b)
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1
  if (Number.isNaN(y)) return 1
  return cmp(x, y)
}

/** The same value as a plain JS number where that loses nothing mingo cares about (a long past 2^53 and decimals stay). */
export function plainNumber (v: unknown): unknown {
  switch (numKind(v)) {
    case 'double':
    case 'int':
      return toDouble(v)
    case 'long': {
      const b = toBig(v)
      return Number.isSafeInteger(Number(b)) ? Number(b) : v
    }
  }
  return v
}
