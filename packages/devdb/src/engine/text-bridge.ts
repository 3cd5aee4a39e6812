/**
 * Bridge to src/text (owned by the text-search layer). Loaded once at start with a dynamic
 * import so the engine still works — refusing text indexes — if that module is absent.
 */
import type { Document } from 'bson'
import type { ParsedTextQuery, TextIndexSpec } from '../text/types.js'

export interface TextApi {
  normalizeTextIndex: (key: Document, options: Document) => TextIndexSpec
  parseTextQuery: (text: Document, spec: TextIndexSpec) => ParsedTextQuery
  textScore: (doc: Document, spec: TextIndexSpec, query: ParsedTextQuery) => number
  textIndexListing: (spec: TextIndexSpec) => Document
  /** Throws as mongod does for documents a text index cannot hold (e.g. unsupported language override). */
  validateTextDocument?: (doc: Document, spec: TextIndexSpec) => void
}

let api: TextApi | undefined

export async function loadTextApi (): Promise<void> {
  if (api !== undefined) return
  try {
    const path = '../text/index.js'
    api = (await import(path)) as TextApi
    if (typeof api.normalizeTextIndex !== 'function') api = undefined
  } catch {
    api = undefined
  }
}

export function textApi (): TextApi | undefined {
  return api
}
