/**
 * The one way BSON becomes engine values, for the wire and for the files alike: numbers keep
 * their BSON type (see numeric.ts for the representation), everything else is plain JS where
 * there is a plain equivalent (Date, RegExp, strings for symbols) and a bson class otherwise.
 */
import { deserialize, type Document } from 'bson'
import { isInt32Value } from './numeric.js'

const OPTIONS = { promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: false } as const

/**
 * In place on a freshly decoded value: Int32 → number; Double → number unless bson would write
 * that number back as int32 (then the Double stays); BSONSymbol → string (deprecated type, read
 * as a string as before); Long and Decimal128 stay as they are.
 */
function normalize (v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = normalize(v[i])
    return v
  }
  switch ((v as { _bsontype?: string })._bsontype) {
    case undefined:
      break
    case 'Int32':
      return (v as { value: number }).value
    case 'Double': {
      const n = (v as { value: number }).value
      return isInt32Value(n) ? v : n
    }
    case 'BSONSymbol':
      return String((v as { value: string }).value)
    case 'Code': {
      const scope = (v as { scope?: unknown }).scope
      if (scope != null) normalize(scope)
      return v
    }
    default:
      return v
  }
  if (v instanceof Date || v instanceof RegExp) return v
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) o[k] = normalize(o[k])
  return o
}

export function decodeDocument (buf: Uint8Array): Document {
  return normalize(deserialize(buf, OPTIONS)) as Document
}
