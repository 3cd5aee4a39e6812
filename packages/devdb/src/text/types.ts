import type { Document } from 'bson'

/** A normalized text index (from createIndexes `{ a: 'text', b: 'text' }` + options weights/default_language/language_override). */
export interface TextIndexSpec {
  name: string
  /** field path → weight (default 1); `$**` for a wildcard text index. */
  weights: Record<string, number>
  defaultLanguage: string // 'english'
  languageOverride: string // 'language'
  /** Non-text prefix/suffix keys of a compound text index, in order. */
  extraKeys: Document
}

/** `$text: { $search, $language?, $caseSensitive?, $diacriticSensitive? }` parsed once per query. */
export interface ParsedTextQuery {
  terms: string[] // stemmed, stop words removed, lower-cased unless caseSensitive
  phrases: string[]
  negatedTerms: string[]
  negatedPhrases: string[]
  caseSensitive: boolean
  diacriticSensitive: boolean
  language: string
}
