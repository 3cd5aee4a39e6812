/**
 * Values as mingo's own operators expect them: JS numbers. Used where mingo computes something
 * new from its operands (a string, a date, a boolean), never where it hands an operand back,
 * so no stored value loses its BSON type on the way through.
 */
import { isPlainDoc } from '../bson/paths.js'
import { plainNumber } from '../bson/numeric.js'

export function deepPlain (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(deepPlain)
  if (isPlainDoc(v)) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) out[k] = deepPlain(v[k])
    return out
  }
  return plainNumber(v)
}
