/**
 * `updateDescription` of an update event, computed from the document before and after (mongod
 * derives it from its oplog diff, with the same shape): changed and added fields as dotted paths
 * into sub-documents, array elements as `path.index`, a shortened array as `truncatedArrays`.
 */
import { serialize, type Document } from 'bson'
import { isPlainDoc } from '../bson/paths.js'

export interface UpdateDescription {
  updatedFields: Document
  removedFields: string[]
  truncatedArrays: Array<{ field: string; newSize: number }>
}

export function describeUpdate (before: Document, after: Document): UpdateDescription {
  const out: UpdateDescription = { updatedFields: {}, removedFields: [], truncatedArrays: [] }
  diffDocs(before, after, '', out)
  return out
}

/** Same BSON bytes: a change of type alone (1 → 1.0) is a change, as in mongod. */
function same (a: unknown, b: unknown): boolean {
  return Buffer.from(serialize({ v: a })).equals(serialize({ v: b }))
}

function diffDocs (a: Document, b: Document, prefix: string, out: UpdateDescription): void {
  for (const k of Object.keys(b)) {
    const path = prefix + k
    if (!Object.prototype.hasOwnProperty.call(a, k)) out.updatedFields[path] = b[k]
    else if (!same(a[k], b[k])) diffValues(a[k], b[k], path, out)
  }
  for (const k of Object.keys(a)) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) out.removedFields.push(prefix + k)
  }
}

function diffValues (a: unknown, b: unknown, path: string, out: UpdateDescription): void {
  if (isPlainDoc(a) && isPlainDoc(b)) diffDocs(a, b, `${path}.`, out)
  else if (Array.isArray(a) && Array.isArray(b)) diffArrays(a, b, path, out)
  else out.updatedFields[path] = b
}

function diffArrays (a: unknown[], b: unknown[], path: string, out: UpdateDescription): void {
  const common = Math.min(a.length, b.length)
  let changed = 0
  for (let i = 0; i < common; i++) if (!same(a[i], b[i])) changed++
  // Mostly different: the whole array is the update (as mongod's diff does for rewritten arrays).
  if (common > 0 && changed * 2 > common) {
    out.updatedFields[path] = b
    return
  }
  for (let i = 0; i < common; i++) if (!same(a[i], b[i])) out.updatedFields[`${path}.${i}`] = b[i]
  for (let i = common; i < b.length; i++) out.updatedFields[`${path}.${i}`] = b[i]
  if (b.length < a.length) out.truncatedArrays.push({ field: path, newSize: b.length })
}
