/**
 * `$text` operand parsing, as MongoDB 7.0 does it (extensions_callback.cpp, fts_query_parser.cpp,
 * fts_query_impl.cpp):
 *  - only whitespace (space, \n, \v, \f, \r) separates query tokens; '-' and '"' are delimiters;
 *  - '-' negates only when preceded by whitespace (or at the start), up to the next whitespace:
 *    "-foo-bar" negates foo and bar, "- foo" negates nothing, "foo-bar" negates nothing;
 *  - "…" is a phrase; -"…" a negated phrase; the words of a positive phrase are also positive
 *    terms (so the index can find candidates), the words of a negated phrase are not terms;
 *  - the collected words are tokenized with stop words removed and stemmed.
 */
import type { Document } from 'bson'
import { CommandError } from '../errors.js'
import { queryLanguage } from './languages.js'
import { INDEX_TOKENS, tokenize } from './tokenizer.js'
import type { ParsedTextQuery, TextIndexSpec } from './types.js'

/** ParsedTextQuery plus the case- and diacritic-insensitive positive terms, the ones the index is searched with (and the score is summed over). */
export interface ParsedTextQueryFull extends ParsedTextQuery {
  boundsTerms: string[]
}

type QueryToken = { kind: 'text' | 'delim'; data: string; offset: number; previousWhiteSpace: boolean }

const WHITESPACE = new Set([' ', '\n', '\v', '\f', '\r'])

function lexQuery (q: string): QueryToken[] {
  const out: QueryToken[] = []
  let pos = 0
  const skipWhiteSpace = (): boolean => {
    const start = pos
    while (pos < q.length && WHITESPACE.has(q[pos])) pos++
    return pos > start
  }
  skipWhiteSpace()
  let previous = true
  while (pos < q.length) {
    const start = pos++
    const c = q[start]
    const kind = c === '-' || c === '"' ? 'delim' : 'text'
    if (kind === 'text') while (pos < q.length && !WHITESPACE.has(q[pos]) && q[pos] !== '-' && q[pos] !== '"') pos++
    const token: QueryToken = { kind, data: q.slice(start, pos), offset: start, previousWhiteSpace: previous }
    previous = skipWhiteSpace()
    out.push(token)
  }
  return out
}

/** MongoDB's typeName() for the wrong-type messages of bsonExtract*Field. */
export function bsonTypeName (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? 'int' : 'double'
  if (typeof v === 'bigint') return 'long'
  if (Array.isArray(v)) return 'array'
  if (v instanceof Date) return 'date'
  if (v instanceof RegExp) return 'regex'
  const t = (v as { _bsontype?: string })._bsontype
  const names: Record<string, string> = {
    ObjectId: 'objectId',
    Long: 'long',
    Int32: 'int',
    Double: 'double',
    Decimal128: 'decimal',
    Binary: 'binData',
    Timestamp: 'timestamp',
    BSONRegExp: 'regex',
    MinKey: 'minKey',
    MaxKey: 'maxKey',
    Code: 'javascript',
    BSONSymbol: 'symbol'
  }
  return t !== undefined ? (names[t] ?? 'object') : 'object'
}

function field (obj: Document, name: string, type: 'string' | 'bool', required: boolean): unknown {
  if (!(name in obj) || obj[name] === undefined) {
    if (required) throw new CommandError(4, 'NoSuchKey', `Missing expected field "${name}"`)
    return undefined
  }
  const v = obj[name]
  if (bsonTypeName(v) !== type) {
    throw new CommandError(
      14,
      'TypeMismatch',
      `"${name}" had the wrong type. Expected ${type}, found ${bsonTypeName(v)}`
    )
  }
  return v
}

export function parseTextQuery (text: Document, spec: TextIndexSpec): ParsedTextQueryFull {
  if (typeof text !== 'object' || text === null || Array.isArray(text) || bsonTypeName(text) !== 'object') {
    throw new CommandError(2, 'BadValue', '$text expects an object')
  }
  const search = field(text, '$search', 'string', true) as string
  const languageName = field(text, '$language', 'string', false) as string | undefined
  const caseSensitive = (field(text, '$caseSensitive', 'bool', false) as boolean | undefined) ?? false
  const diacriticSensitive = (field(text, '$diacriticSensitive', 'bool', false) as boolean | undefined) ?? false
  const expected =
    1 + [languageName, text.$caseSensitive, text.$diacriticSensitive].filter((v) => v !== undefined).length
  if (Object.keys(text).length !== expected) throw new CommandError(2, 'BadValue', 'extra fields in $text')

  // An empty $language means "the index's default", as in MongoDB.
  const language = queryLanguage(
    languageName === undefined || languageName === '' ? spec.defaultLanguage : languageName
  )

  const positiveWords: string[] = []
  const negativeWords: string[] = []
  const phrases: string[] = []
  const negatedPhrases: string[] = []
  let inNegation = false
  let inPhrase = false
  let quoteOffset = 0
  for (const t of lexQuery(search)) {
    if (t.kind === 'text') {
      if (inPhrase && inNegation) continue // words of a negated phrase are not terms
      if (inNegation && t.previousWhiteSpace) inNegation = false
      ;(inNegation ? negativeWords : positiveWords).push(t.data)
    } else if (t.data === '-') {
      if (!inPhrase && t.previousWhiteSpace) inNegation = true
    } else if (inPhrase) {
      const phrase = search.slice(quoteOffset + 1, t.offset)
      ;(inNegation ? negatedPhrases : phrases).push(phrase)
      inPhrase = false // the negation continues to the next whitespace: -"a b"-"c d" negates both
    } else {
      inPhrase = true
      if (inNegation && t.previousWhiteSpace) inNegation = false
      quoteOffset = t.offset
    }
  }

  const sensitive = caseSensitive || diacriticSensitive
  const words = (list: string[], opts: typeof INDEX_TOKENS): string[] => [
    ...new Set(tokenize(list.join(' '), language, opts))
  ]
  const exact = { filterStopWords: true, caseSensitive, diacriticSensitive }
  const boundsTerms = words(positiveWords, INDEX_TOKENS)
  return {
    terms: sensitive ? words(positiveWords, exact) : boundsTerms,
    phrases,
    negatedTerms: words(negativeWords, sensitive ? exact : INDEX_TOKENS),
    negatedPhrases,
    caseSensitive,
    diacriticSensitive,
    language: language.name,
    boundsTerms
  }
}
