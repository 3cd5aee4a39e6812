/**
 * Matching and scoring of one document against a parsed $text query, as MongoDB does it:
 *  - candidates are the documents whose index keys contain a query term (case- and
 *    diacritic-insensitive: the index only stores folded terms);
 *  - the matcher then requires, for case/diacritic-sensitive queries, a positive term in the
 *    exact spelling; no negated term; every phrase; no negated phrase (phrases are plain
 *    substring matches on each indexed string, folded as the query asks);
 *  - the score is the sum, over the query's terms, of the document's per-term index score
 *    (FTSSpec::_scoreStringV2): for each indexed string,
 *      weight × freq × (0.5 × count / tokens + 0.5) × (1.1 if the whole string is the term)
 *    where repeated occurrences count 1, ½, ¼, … in freq.
 */
import type { Document } from 'bson'
import { queryLanguage, type TextLanguage } from './languages.js'
import type { ParsedTextQueryFull } from './query-parser.js'
import { INDEX_TOKENS, foldForPhrase, stripDiacritics, tokenize } from './tokenizer.js'
import { textValues, type TextValue } from './text-values.js'
import type { ParsedTextQuery, TextIndexSpec } from './types.js'

/** ASCII-only case-insensitive equality, like StringData::equalCaseInsensitive. */
function equalAsciiCaseInsensitive (a: string, b: string): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x >= 65 && x <= 90) x += 32
    if (y >= 65 && y <= 90) y += 32
    if (x !== y) return false
  }
  return true
}

/** Per-term scores of a document, as stored in a text index's keys. */
export function documentTermScores (values: readonly TextValue[]): Map<string, number> {
  const scores = new Map<string, number>()
  for (const { text, language, weight } of values) {
    const terms = new Map<string, { freq: number; count: number; exp: number }>()
    let numTokens = 0
    for (const term of tokenize(text, language, INDEX_TOKENS)) {
      let data = terms.get(term)
      if (data === undefined) {
        data = { freq: 0, count: 0, exp: 0 }
        terms.set(term, data)
      }
      data.exp = data.exp === 0 ? 1 : data.exp * 2
      data.count += 1
      data.freq += 1 / data.exp
      numTokens++
    }
    for (const [term, data] of terms) {
      const coeff = (0.5 * data.count) / numTokens + 0.5
      // Byte length, as MongoDB compares std::string sizes.
      const exactBonus =
        Buffer.byteLength(text) === Buffer.byteLength(term) && equalAsciiCaseInsensitive(text, term) ? 0.1 : 0
      scores.set(term, (scores.get(term) ?? 0) + weight * data.freq * coeff * (1 + exactBonus))
    }
  }
  return scores
}

function boundsOf (query: ParsedTextQuery): string[] {
  const full = query as Partial<ParsedTextQueryFull>
  if (Array.isArray(full.boundsTerms)) return full.boundsTerms
  return [...new Set(query.terms.map((t) => stripDiacritics(t.toLowerCase())))]
}

function anyToken (values: readonly TextValue[], wanted: readonly string[], query: ParsedTextQuery): boolean {
  if (wanted.length === 0) return false
  const set = new Set(wanted)
  const opts = {
    filterStopWords: false,
    caseSensitive: query.caseSensitive,
    diacriticSensitive: query.diacriticSensitive
  }
  return values.some((v) => tokenize(v.text, v.language, opts).some((t) => set.has(t)))
}

function phraseIn (values: readonly TextValue[], phrase: string, query: ParsedTextQuery): boolean {
  const needle = foldForPhrase(phrase, query.caseSensitive, query.diacriticSensitive)
  return values.some((v) => foldForPhrase(v.text, query.caseSensitive, query.diacriticSensitive).includes(needle))
}

/** The document's textScore for the query, or 0 when the query does not match it. */
export function textScore (doc: Document, spec: TextIndexSpec, query: ParsedTextQuery): number {
  const values = textValues(doc, spec, defaultLanguageOf(spec))
  const scores = documentTermScores(values)
  let score = 0
  let found = false
  for (const term of boundsOf(query)) {
    const s = scores.get(term)
    if (s !== undefined) {
      score += s
      found = true
    }
  }
  if (!found) return 0
  if ((query.caseSensitive || query.diacriticSensitive) && !anyToken(values, query.terms, query)) return 0
  if (anyToken(values, query.negatedTerms, query)) return 0
  if (!query.phrases.every((p) => phraseIn(values, p, query))) return 0
  if (query.negatedPhrases.some((p) => phraseIn(values, p, query))) return 0
  return score
}

function defaultLanguageOf (spec: TextIndexSpec): TextLanguage {
  return queryLanguage(spec.defaultLanguage)
}

/**
 * Throws what MongoDB throws when such a document is inserted into a collection with this text
 * index (a non-string or unsupported language override), so the engine can refuse the write.
 */
export function validateTextDocument (doc: Document, spec: TextIndexSpec): void {
  textValues(doc, spec, defaultLanguageOf(spec))
}
