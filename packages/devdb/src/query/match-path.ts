/**
 * The values a query predicate on a dotted path is tested against, with MongoDB's array rules:
 * arrays met before the last component are traversed (elements that are documents), numeric
 * components index arrays, and a leaf array is offered both as a whole and element by element.
 */
import { isPlainDoc } from '../bson/paths.js'

export const MISSING = Symbol('missing')

export interface Candidates {
  /** candidate values (MISSING when the path does not exist along some branch) */
  values: unknown[]
  /** the leaf values before array expansion (used by $size, $type:'array', $all) */
  leaves: unknown[]
}

export function candidates (doc: unknown, path: string): Candidates {
  const out: Candidates = { values: [], leaves: [] }
  walk(doc, path.split('.'), 0, out, false)
  return out
}

function emitLeaf (value: unknown, out: Candidates, expand: boolean): void {
  out.leaves.push(value)
  out.values.push(value)
  if (expand && Array.isArray(value)) for (const el of value) out.values.push(el)
}

function walk (value: unknown, parts: string[], i: number, out: Candidates, inArray: boolean): void {
  if (i === parts.length) {
    emitLeaf(value, out, true)
    return
  }
  const part = parts[i]
  if (Array.isArray(value)) {
    let found = false
    if (/^\d+$/.test(part)) {
      const idx = Number(part)
      if (idx < value.length) {
        walk(value[idx], parts, i + 1, out, false)
        found = true
      }
    }
    for (const el of value) {
      if (isPlainDoc(el)) {
        walk(el, parts, i, out, true)
        found = true
      }
    }
    if (!found) out.values.push(MISSING)
    return
  }
  if (isPlainDoc(value)) {
    if (Object.prototype.hasOwnProperty.call(value, part) && value[part] !== undefined) {
      walk(value[part], parts, i + 1, out, inArray)
    } else out.values.push(MISSING)
    return
  }
  out.values.push(MISSING)
}
