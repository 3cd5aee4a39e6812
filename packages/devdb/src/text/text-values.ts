/**
 * Which strings of a document a text index covers, with their weight and language — a port of
 * MongoDB's FTSElementIterator:
 *  - the document is walked in field order; a string is indexed when its dotted path equals a
 *    weighted field (or always, for a wildcard `$**` index);
 *  - arrays are entered (array elements share the array's path) but not arrays inside arrays,
 *    except for a wildcard index;
 *  - each (sub)document may name its own language in the language override field, which then
 *    applies to everything below it; a wildcard index does not index that field itself;
 *  - for a wildcard index the weight of a field is that of the first weighted path that sorts at
 *    or after it (MongoDB's lower_bound quirk), or 1 when there is none.
 */
import type { Document } from 'bson'
import { documentLanguage, type TextLanguage } from './languages.js'
import { WILDCARD } from './index-spec.js'
import type { TextIndexSpec } from './types.js'

export interface TextValue {
  text: string
  language: TextLanguage
  weight: number
}

/** A BSON embedded document (not an array, Date, ObjectId or other BSON value class). */
function isEmbeddedDoc (v: unknown): v is Document {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  if (v instanceof Date || v instanceof RegExp || ArrayBuffer.isView(v)) return false
  const t = (v as { _bsontype?: unknown })._bsontype
  return t === undefined
}

function compareBytes (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

export function textValues (doc: Document, spec: TextIndexSpec, defaultLanguage: TextLanguage): TextValue[] {
  const wildcard = WILDCARD in spec.weights
  const weighted = Object.entries(spec.weights)
    .filter(([f]) => f !== WILDCARD)
    .sort((a, b) => compareBytes(a[0], b[0]))
  const lowerBound = (key: string): number => {
    let lo = 0
    let hi = weighted.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (compareBytes(weighted[mid][0], key) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const out: TextValue[] = []
  const visit = (obj: Document, parentPath: string, isArray: boolean, parentLanguage: TextLanguage): void => {
    const override = isArray ? undefined : obj[spec.languageOverride]
    const language = override === undefined ? parentLanguage : documentLanguage(override)
    for (const [name, value] of Object.entries(obj)) {
      if (wildcard && name === spec.languageOverride) continue
      const dotted = parentPath === '' ? name : isArray ? parentPath : `${parentPath}.${name}`
      const embedded = isEmbeddedDoc(value)
      const i = lowerBound(embedded ? `${dotted}.` : dotted)
      const possible = i < weighted.length
      if (!wildcard && (!possible || !(weighted[i][0] === dotted || weighted[i][0].startsWith(`${dotted}.`)))) continue
      const exact = possible && weighted[i][0] === dotted
      const weight = possible ? weighted[i][1] : 1
      if (typeof value === 'string') {
        if (exact || wildcard) out.push({ text: value, language, weight })
      } else if (Array.isArray(value)) {
        if (!isArray || wildcard) visit(value as unknown as Document, dotted, true, language)
      } else if (embedded) {
        if (!exact || wildcard) visit(value, dotted, false, language)
      }
    }
  }
  visit(doc, '', false, defaultLanguage)
  return out
}
