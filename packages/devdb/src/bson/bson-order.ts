/**
 * BSON comparison order (MongoDB "Comparison/Sort Order"):
 * MinKey < null/missing < numbers < symbol,string < object < array < BinData < ObjectId < bool < Date < Timestamp < regex < MaxKey.
 * Numbers compare by value across int/long/double/Decimal128.
 */
import { compareNumbers } from './numeric.js'

export const Rank = {
  MinKey: 1,
  EmptyArray: 1.5, // sort key of [] is "undefined", below null
  Null: 2,
  Number: 3,
  String: 4,
  Object: 5,
  Array: 6,
  BinData: 7,
  ObjectId: 8,
  Bool: 9,
  Date: 10,
  Timestamp: 11,
  Regex: 12,
  Code: 13,
  MaxKey: 127
} as const

export function bsonTypeName (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0) ? 'int' : 'double'
    case 'string':
      return 'string'
    case 'boolean':
      return 'bool'
    case 'bigint':
      return 'long'
  }
  if (Array.isArray(v)) return 'array'
  if (v instanceof Date) return 'date'
  if (v instanceof RegExp) return 'regex'
  const t = (v as { _bsontype?: string })._bsontype
  switch (t) {
    case 'ObjectId':
      return 'objectId'
    case 'Binary':
      return 'binData'
    case 'Long':
      return 'long'
    case 'Int32':
      return 'int'
    case 'Double':
      return 'double'
    case 'Decimal128':
      return 'decimal'
    case 'Timestamp':
      return 'timestamp'
    case 'MinKey':
      return 'minKey'
    case 'MaxKey':
      return 'maxKey'
    case 'BSONRegExp':
      return 'regex'
    case 'Code':
      return 'javascript'
    case 'BSONSymbol':
      return 'symbol'
    case 'DBRef':
      return 'object'
  }
  return 'object'
}

export function rankOf (v: unknown): number {
  switch (bsonTypeName(v)) {
    case 'minKey':
      return Rank.MinKey
    case 'null':
      return Rank.Null
    case 'int':
    case 'long':
    case 'double':
    case 'decimal':
      return Rank.Number
    case 'string':
    case 'symbol':
      return Rank.String
    case 'object':
      return Rank.Object
    case 'array':
      return Rank.Array
    case 'binData':
      return Rank.BinData
    case 'objectId':
      return Rank.ObjectId
    case 'bool':
      return Rank.Bool
    case 'date':
      return Rank.Date
    case 'timestamp':
      return Rank.Timestamp
    case 'regex':
      return Rank.Regex
    case 'javascript':
      return Rank.Code
    case 'maxKey':
      return Rank.MaxKey
  }
  return Rank.Object
}

export function isNumeric (v: unknown): boolean {
  return rankOf(v) === Rank.Number
}

/** Numeric value as a JS number (Decimal128/Long lose precision beyond 2^53, acceptable for a dev database). */
export { toDouble as toNumber } from './numeric.js'

function cmp (a: number | string | bigint, b: number | string | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A collation's string comparison; absent means the simple (binary) collation. */
export type StringCompare = (a: string, b: string) => number

function compareBytes (a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  return cmp(a.length, b.length)
}

/** An ObjectId of any bson version: bson 7 keeps its 12 bytes as four 24-bit integers `i0`…`i3`, every version answers `id`. */
interface ObjectIdLike {
  id: Uint8Array
  i0?: unknown
  i1?: unknown
  i2?: unknown
  i3?: unknown
}

/**
 * Byte order of two ObjectIds. bson 7's `id` getter allocates a 12-byte buffer on each call and
 * index lookups compare ObjectIds many times each, so its four big-endian 24-bit integers are
 * compared instead when both have them (the same order: each holds three of the bytes, in order).
 */
function compareObjectIds (a: ObjectIdLike, b: ObjectIdLike): number {
  if (
    typeof a.i0 === 'number' &&
    typeof a.i1 === 'number' &&
    typeof a.i2 === 'number' &&
    typeof a.i3 === 'number' &&
    typeof b.i0 === 'number' &&
    typeof b.i1 === 'number' &&
    typeof b.i2 === 'number' &&
    typeof b.i3 === 'number'
  ) {
    if (a.i0 !== b.i0) return a.i0 < b.i0 ? -1 : 1
    if (a.i1 !== b.i1) return a.i1 < b.i1 ? -1 : 1
    if (a.i2 !== b.i2) return a.i2 < b.i2 ? -1 : 1
    return a.i3 < b.i3 ? -1 : a.i3 > b.i3 ? 1 : 0
  }
  return compareBytes(a.id, b.id)
}

/**
 * Total order on BSON values, as MongoDB compares them (not array-unwinding: arrays compare
 * element-wise). Strings, also inside documents and arrays, compare with `strCmp` when a
 * collation applies; field names always compare binary.
 */
export function compareValues (a: unknown, b: unknown, strCmp?: StringCompare): number {
  // Fast paths for the types index keys and sorts meet most.
  if (typeof a === 'string' && typeof b === 'string') return strCmp !== undefined ? strCmp(a, b) : cmp(a, b)
  if (typeof a === 'number' && typeof b === 'number' && a === a && b === b) return cmp(a, b) // eslint-disable-line no-self-compare
  if (a instanceof Date && b instanceof Date) return cmp(a.getTime(), b.getTime())
  const ra = rankOf(a)
  const rb = rankOf(b)
  if (ra !== rb) return ra < rb ? -1 : 1
  switch (ra) {
    case Rank.MinKey:
    case Rank.MaxKey:
    case Rank.Null:
      return 0
    case Rank.Number:
      return compareNumbers(a, b)
    case Rank.String:
      return strCmp !== undefined ? strCmp(String(a), String(b)) : cmp(String(a), String(b))
    case Rank.Object:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>, strCmp)
    case Rank.Array: {
      const x = a as unknown[]
      const y = b as unknown[]
      const n = Math.min(x.length, y.length)
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i], y[i], strCmp)
        if (c !== 0) return c
      }
      return cmp(x.length, y.length)
    }
    case Rank.BinData: {
      const x = a as { buffer: Uint8Array; sub_type: number; position: number }
      const y = b as { buffer: Uint8Array; sub_type: number; position: number }
      const xb = x.buffer.subarray(0, x.position)
      const yb = y.buffer.subarray(0, y.position)
      if (xb.length !== yb.length) return cmp(xb.length, yb.length)
      if (x.sub_type !== y.sub_type) return cmp(x.sub_type, y.sub_type)
      return compareBytes(xb, yb)
    }
    case Rank.ObjectId:
      return compareObjectIds(a as ObjectIdLike, b as ObjectIdLike)
    case Rank.Bool:
      return cmp(a ? 1 : 0, b ? 1 : 0)
    case Rank.Date:
      return cmp((a as Date).getTime(), (b as Date).getTime())
    case Rank.Timestamp: {
      const x = a as { t: number; i: number }
      const y = b as { t: number; i: number }
      return cmp(x.t, y.t) || cmp(x.i, y.i)
    }
    case Rank.Regex: {
      const x = regexParts(a)
      const y = regexParts(b)
      return cmp(x[0], y[0]) || cmp(x[1], y[1])
    }
    default:
      return cmp(String(a), String(b))
  }
}

function regexParts (v: unknown): [string, string] {
  if (v instanceof RegExp) return [v.source, v.flags]
  const r = v as { pattern: string; options: string }
  return [r.pattern, r.options]
}

function compareObjects (a: Record<string, unknown>, b: Record<string, unknown>, strCmp?: StringCompare): number {
  const ka = Object.keys(a).filter((k) => a[k] !== undefined)
  const kb = Object.keys(b).filter((k) => b[k] !== undefined)
  const n = Math.min(ka.length, kb.length)
  for (let i = 0; i < n; i++) {
    const ta = rankOf(a[ka[i]])
    const tb = rankOf(b[kb[i]])
    if (ta !== tb) return ta < tb ? -1 : 1
    const kc = cmp(ka[i], kb[i])
    if (kc !== 0) return kc
    const vc = compareValues(a[ka[i]], b[kb[i]], strCmp)
    if (vc !== 0) return vc
  }
  return cmp(ka.length, kb.length)
}

export function valuesEqual (a: unknown, b: unknown, strCmp?: StringCompare): boolean {
  return compareValues(a, b, strCmp) === 0
}
