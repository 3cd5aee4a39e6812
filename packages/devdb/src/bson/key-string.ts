/**
 * Canonical string for a BSON value, used as a hash-map key for `_id` and index lookups.
 * Two values get the same key exactly when MongoDB's index key comparison says they are equal
 * (1, NumberLong(1), 1.0 and Decimal128("1") share a key; field order inside objects matters).
 */
import { bsonTypeName, toNumber } from './bson-order.js'

function numberKey (v: unknown): string {
  const t = bsonTypeName(v)
  if (t === 'long') {
    const s = String(v)
    return 'n' + s
  }
  if (t === 'decimal') {
    const s = String(v)
    const n = Number(s)
    if (Number.isNaN(n)) return 'nNaN'
    // Integral decimals (including "1.0", "1E+2") map onto the integer key shared with doubles/longs.
    if (/^-?\d+(\.0*)?$/.test(s) || /^-?\d+(\.\d+)?E[+-]?\d+$/i.test(s)) {
      if (Number.isInteger(n) && Math.abs(n) < 2 ** 53) return 'n' + String(n === 0 ? 0 : n)
    }
    return String(n) === s ? 'n' + s : 'n' + String(n)
  }
  const n = toNumber(v)
  if (Number.isNaN(n)) return 'nNaN'
  if (n === 0) return 'n0'
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return 'n' + BigInt(n).toString()
  return 'n' + String(n)
}

export function keyString (v: unknown): string {
  const t = bsonTypeName(v)
  switch (t) {
    case 'null':
      return 'N'
    case 'int':
    case 'long':
    case 'double':
    case 'decimal':
      return numberKey(v)
    case 'string':
    case 'symbol':
      return 's' + JSON.stringify(String(v))
    case 'bool':
      return v === true ? 'T' : 'F'
    case 'date':
      return 'd' + String((v as Date).getTime())
    case 'objectId':
      return 'i' + (v as { toHexString: () => string }).toHexString()
    case 'binData': {
      const b = v as { sub_type: number; toString: (enc: string) => string }
      return 'x' + String(b.sub_type) + ':' + b.toString('base64')
    }
    case 'timestamp':
      return 't' + String(v)
    case 'regex': {
      const r =
        v instanceof RegExp
          ? [v.source, v.flags]
          : [(v as { pattern: string }).pattern, (v as { options: string }).options]
      return 'r' + JSON.stringify(r)
    }
    case 'minKey':
      return '<'
    case 'maxKey':
      return '>'
    case 'array':
      return '[' + (v as unknown[]).map(keyString).join(',') + ']'
    case 'javascript':
      return 'j' + JSON.stringify(String((v as { code: string }).code))
    default: {
      const o = v as Record<string, unknown>
      const parts: string[] = []
      for (const k of Object.keys(o)) {
        if (o[k] === undefined) continue
        parts.push(JSON.stringify(k) + ':' + keyString(o[k]))
      }
      return '{' + parts.join(',') + '}'
    }
  }
}
