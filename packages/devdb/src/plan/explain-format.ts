/** Index bounds as mongod's explain prints them: `["a", "a"]`, `(5, inf.0]`, `[MaxKey, MinKey]`. */
import type { Document } from 'bson'
import { Rank } from '../bson/bson-order.js'
import { Edge, EMPTY_ARRAY_KEY } from '../bson/key-compare.js'
import { formatValue } from '../bson/format-value.js'
import type { IndexDef } from '../engine/index-def.js'
import type { Interval } from './bounds.js'

// The smallest value of the type after each bracket, which is how mongod writes a bracket's end.
const BRACKET_END: Record<number, string> = {
  [Rank.Null]: '-inf.0',
  [Rank.Number]: '""',
  [Rank.String]: '{}',
  [Rank.Object]: '[]',
  [Rank.Array]: 'BinData(0, )',
  [Rank.BinData]: "ObjectId('000000000000000000000000')",
  [Rank.ObjectId]: 'false',
  [Rank.Bool]: 'new Date(-9223372036854775808)',
  [Rank.Date]: 'Timestamp(0, 0)',
  [Rank.Timestamp]: '/(?:)/',
  [Rank.Regex]: 'MaxKey'
}
const BRACKET_START: Record<number, string> = {
  [Rank.String]: '""',
  [Rank.Object]: '{}',
  [Rank.Array]: '[]',
  [Rank.ObjectId]: "ObjectId('000000000000000000000000')",
  [Rank.Bool]: 'false',
  [Rank.Date]: 'new Date(-9223372036854775808)',
  [Rank.Timestamp]: 'Timestamp(0, 0)'
}

export function formatKeyValue (v: unknown): string {
  if (v instanceof Edge) {
    if (v.rank < 0) return 'MinKey'
    if (v.rank >= 1000) return 'MaxKey'
    return (v.side === 1 ? BRACKET_END[v.rank] : BRACKET_START[v.rank]) ?? (v.side === 1 ? 'MaxKey' : 'MinKey')
  }
  if (v === EMPTY_ARRAY_KEY) return 'undefined'
  if (v === Infinity) return 'inf.0'
  if (v === -Infinity) return '-inf.0'
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return String(v)
  const t = (v as { _bsontype?: string } | null)?._bsontype
  if (t === 'MinKey') return 'MinKey'
  if (t === 'MaxKey') return 'MaxKey'
  return formatValue(v)
}

function formatInterval (iv: Interval, forward: boolean): string {
  return forward
    ? `${iv.loInc ? '[' : '('}${formatKeyValue(iv.lo)}, ${formatKeyValue(iv.hi)}${iv.hiInc ? ']' : ')'}`
    : `${iv.hiInc ? '[' : '('}${formatKeyValue(iv.hi)}, ${formatKeyValue(iv.lo)}${iv.loInc ? ']' : ')'}`
}

/** `indexBounds` of an IXSCAN: per field, intervals in the order the scan visits them. */
export function formatBounds (index: IndexDef, bounds: Interval[][], direction: 1 | -1): Document {
  const out: Document = {}
  index.fields.forEach((f, i) => {
    const forward = index.dirs[i] * direction === 1
    const ivs = forward ? bounds[i] : [...bounds[i]].reverse()
    out[f] = ivs.map((iv) => formatInterval(iv, forward))
  })
  return out
}
