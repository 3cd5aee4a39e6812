/**
 * Text-search languages. MongoDB 7.0 (text index version 3) knows 15 Snowball languages plus
 * 'none', by name or two-letter code, case-insensitively. devdb implements 'english' and 'none';
 * the other MongoDB languages are refused with NotImplemented rather than silently indexed with
 * the wrong stemmer, and anything else gets MongoDB's own "unsupported language" errors.
 */
// The package has no types; the reference brings our declaration wherever this file is compiled
// (other packages' typechecks reach it through @svc/devdb's sources).
/// <reference path="./vendor-modules.d.ts" />
import stemEnglish from 'wink-porter2-stemmer'
import { CommandError } from '../errors.js'
import { ENGLISH_STOP_WORDS } from './stop-words-english.js'

export interface TextLanguage {
  name: 'english' | 'none'
  stopWords: ReadonlySet<string>
  /** Stems a word that may be mixed case (case-sensitive queries stem the original spelling). */
  stem: (word: string) => string
  /** English keeps the apostrophe inside words ("don't"); other languages split on it. */
  apostropheIsDelimiter: boolean
}

const NO_STOP_WORDS: ReadonlySet<string> = new Set()

/**
 * The stemmer lower-cases; MongoDB's Snowball stemmer works on the word as given. For a
 * mixed-case word we keep the original spelling of the part the stem shares with the word
 * ("Running" → "Run"), which is what Snowball yields for suffix removal.
 */
function stemKeepingCase (word: string): string {
  const lower = word.toLowerCase()
  const stemmed = stemEnglish(lower)
  if (lower === word || lower.length !== word.length) return stemmed
  let common = 0
  while (common < stemmed.length && stemmed[common] === lower[common]) common++
  return word.slice(0, common) + stemmed.slice(common)
}

const ENGLISH: TextLanguage = {
  name: 'english',
  stopWords: ENGLISH_STOP_WORDS,
  stem: stemKeepingCase,
  apostropheIsDelimiter: false
}
const NONE: TextLanguage = { name: 'none', stopWords: NO_STOP_WORDS, stem: (w) => w, apostropheIsDelimiter: true }

const OTHER_MONGODB_LANGUAGES = new Set([
  'danish',
  'da',
  'dutch',
  'nl',
  'finnish',
  'fi',
  'french',
  'fr',
  'german',
  'de',
  'hungarian',
  'hu',
  'italian',
  'it',
  'norwegian',
  'nb',
  'portuguese',
  'pt',
  'romanian',
  'ro',
  'russian',
  'ru',
  'spanish',
  'es',
  'swedish',
  'sv',
  'turkish',
  'tr'
])

/** undefined: not a MongoDB language at all. Throws NotImplemented for MongoDB languages devdb lacks. */
export function findLanguage (name: string): TextLanguage | undefined {
  const n = name.toLowerCase()
  if (n === 'english' || n === 'en') return ENGLISH
  if (n === 'none') return NONE
  if (OTHER_MONGODB_LANGUAGES.has(n)) {
    throw new CommandError(
      238,
      'NotImplemented',
      `devdb does not implement text search in language "${name}" (supported: english, none)`
    )
  }
  return undefined
}

/** Language of a `$language` query option. */
export function queryLanguage (name: string): TextLanguage {
  const l = findLanguage(name)
  if (l === undefined) throw new CommandError(2, 'BadValue', `unsupported language: "${name}" for text index version 3`)
  return l
}

/** Language named by a document's language override field. */
export function documentLanguage (value: unknown): TextLanguage {
  if (typeof value !== 'string') {
    throw new CommandError(17261, 'Location17261', 'found language override field in document with non-string type')
  }
  const l = findLanguage(value)
  if (l === undefined) throw new CommandError(17262, 'Location17262', `language override unsupported: ${value}`)
  return l
}
