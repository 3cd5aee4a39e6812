import type { Document } from 'bson'
import { isPlainDoc } from '../../bson/paths.js'
import { setOwn } from '../../bson/doc-copy.js'

/** Deep copy of the mutable parts (plain objects, arrays); BSON values are immutable and shared. */
export function cloneDoc<T> (v: T): T {
  if (Array.isArray(v)) return v.map(cloneDoc) as T
  if (isPlainDoc(v)) {
    const out: Document = {}
    for (const k of Object.keys(v)) setOwn(out, k, cloneDoc(v[k]))
    return out as T
  }
  if (v instanceof Date) return new Date(v.getTime()) as T
  return v
}
