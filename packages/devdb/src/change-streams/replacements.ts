/**
 * Documents written by a replacement-style update (`update` with a replacement, findAndModify
 * with one): their change event is `replace`, an operator or pipeline update's is `update`. A
 * weak set, so marking a document costs nothing once it is gone.
 */
import type { Document } from 'bson'

const replacements = new WeakSet<Document>()

export function markReplacement (doc: Document): void {
  replacements.add(doc)
}

export function isReplacement (doc: Document): boolean {
  return replacements.has(doc)
}
