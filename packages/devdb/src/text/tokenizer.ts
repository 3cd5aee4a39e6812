/**
 * MongoDB's text index version 3 tokenizer (fts_unicode_tokenizer):
 *  - a token is a maximal run of non-delimiters; delimiters are the code points with the Unicode
 *    properties White_Space, Dash, Hyphen, Quotation_Mark, Terminal_Punctuation, Pattern_Syntax
 *    or Sentence_Terminal — except the apostrophe, which is part of English words;
 *  - each token is lower-cased (diacritics kept) and checked against the stop words, then
 *    stemmed (in its original case for case-sensitive queries), then stripped of diacritics
 *    unless the query is diacritic-sensitive.
 */
import type { TextLanguage } from './languages.js'

// Hyphen is not a JS regex property; its members outside Dash are listed explicitly.
const DELIMITER =
  /[\p{White_Space}\p{Dash}\p{Quotation_Mark}\p{Terminal_Punctuation}\p{Pattern_Syntax}\p{Sentence_Terminal}\u00AD\u058A\u1806\u2010\u2011\u2E17\u30FB\uFE63\uFF0D\uFF65]/u

export interface TokenizeOptions {
  filterStopWords: boolean
  caseSensitive: boolean
  diacriticSensitive: boolean
}

export const INDEX_TOKENS: TokenizeOptions = { filterStopWords: true, caseSensitive: false, diacriticSensitive: false }

function isDelimiter (ch: string, language: TextLanguage): boolean {
  if (ch === "'") return language.apostropheIsDelimiter
  return DELIMITER.test(ch)
}

/** Splits on delimiters, returning the raw tokens in order. */
export function rawTokens (text: string, language: TextLanguage): string[] {
  const out: string[] = []
  let current = ''
  for (const ch of text) {
    // iterates code points, not UTF-16 units
    if (isDelimiter(ch, language)) {
      if (current !== '') out.push(current)
      current = ''
    } else current += ch
  }
  if (current !== '') out.push(current)
  return out
}

/** Removes diacritics: canonical decomposition, drop the Diacritic marks, recompose. */
export function stripDiacritics (s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s
  return s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .normalize('NFC')
}

export function tokenize (text: string, language: TextLanguage, options: TokenizeOptions): string[] {
  const out: string[] = []
  for (const raw of rawTokens(text, language)) {
    const lower = raw.toLowerCase()
    if (options.filterStopWords && language.stopWords.has(lower)) continue
    let word = language.stem(options.caseSensitive ? raw : lower)
    if (!options.diacriticSensitive) word = stripDiacritics(word)
    out.push(word)
  }
  return out
}

/** The form phrase matching compares in: case-folded and/or diacritic-free as the query asks. */
export function foldForPhrase (s: string, caseSensitive: boolean, diacriticSensitive: boolean): string {
  let r = caseSensitive ? s : s.toLowerCase()
  if (!diacriticSensitive) r = stripDiacritics(r)
  return r
}
