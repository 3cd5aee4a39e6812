/**
 * Text index specifications, validated and normalized as MongoDB's FTSSpec::fixSpec does:
 * `{ a: 1, title: 'text', body: 'text' }` becomes key `{ a: 1, _fts: 'text', _ftsx: 1 }` with
 * weights `{ body: 1, title: 1 }` (sorted by field, integer, in (0, 100000)). The listing form
 * is accepted back as input, so an index read from storage normalizes to the same spec.
 */
import type { Document } from 'bson'
import { CommandError } from '../errors.js'
import { findLanguage } from './languages.js'
import type { TextIndexSpec } from './types.js'

const MAX_WORD_WEIGHT = 100_000
export const WILDCARD = '$**'

/** TextIndexSpec plus where the text keys sit between the extra keys (for the listing). */
export interface NormalizedTextIndex extends TextIndexSpec {
  /** How many of extraKeys come before `_fts`/`_ftsx` in the key pattern. */
  extraBefore: number
}

function cannotCreate (msg: string): CommandError {
  return new CommandError(67, 'CannotCreateIndex', msg)
}

function isNumber (v: unknown): v is number {
  return (
    typeof v === 'number' ||
    (typeof v === 'object' &&
      v !== null &&
      ['Int32', 'Double', 'Long', 'Decimal128'].includes((v as { _bsontype?: string })._bsontype ?? ''))
  )
}

/** BSON numberInt(): truncation toward zero, as fixSpec reads weights and key directions. */
function numberInt (v: unknown): number {
  const n = Number(typeof v === 'object' && v !== null ? (v as { valueOf: () => unknown }).valueOf() : v)
  return Number.isFinite(n) ? Math.trunc(n) : 0
}

function checkNotReserved (field: string): void {
  if (field === '_fts' || field === '_ftsx') {
    throw cannotCreate('text index with reserved fields _fts/_ftsx not allowed')
  }
}

export function normalizeTextIndex (key: Document, options: Document): NormalizedTextIndex {
  const weights = new Map<string, number>()
  const extraKeys: Document = {}
  let extraBefore = 0
  let seenText = false
  let textEnded = false
  for (const [field, value] of Object.entries(key)) {
    if (field === '_fts') {
      if (value !== 'text') throw cannotCreate('expecting _fts:"text"')
      seenText = true
    } else if (field === '_ftsx') {
      if (numberInt(value) !== 1) throw cannotCreate('expecting _ftsx:1')
      if (!seenText) checkNotReserved(field) // before _fts it is an ordinary (reserved) key name
    } else if (value === 'text') {
      checkNotReserved(field)
      if (textEnded) throw cannotCreate("'text' fields in index must all be adjacent")
      seenText = true
      weights.set(field, 1)
    } else {
      checkNotReserved(field)
      if (!isNumber(value) || (numberInt(value) !== 1 && numberInt(value) !== -1)) {
        throw cannotCreate('expected value 1 or -1 for non-text key in compound index')
      }
      if (seenText) textEnded = true
      else extraBefore++
      extraKeys[field] = value
    }
  }
  if (!seenText) throw cannotCreate('text index key pattern has no text field')

  const w = options.weights
  if (typeof w === 'object' && w !== null && !Array.isArray(w)) {
    for (const [field, value] of Object.entries(w as Document)) {
      if (!isNumber(value)) throw cannotCreate('weight for text index needs numeric type')
      weights.set(field, numberInt(value))
    }
  } else if (w === WILDCARD) {
    weights.set(WILDCARD, 1)
  } else if (w !== undefined) {
    throw cannotCreate("text index option 'weights' must be an object")
  }
  if (weights.size === 0) throw cannotCreate("text index option 'weights' must specify fields or the wildcard")

  const sorted: Record<string, number> = {}
  for (const field of [...weights.keys()].sort(byteOrder)) {
    const weight = weights.get(field) as number
    if (weight <= 0 || weight >= MAX_WORD_WEIGHT) {
      throw cannotCreate(
        `text index weight must be in the exclusive interval (0,${MAX_WORD_WEIGHT}) but found: ${weight}`
      )
    }
    if (field !== WILDCARD) checkWeightPath(field)
    sorted[field] = weight
  }

  const defaultLanguage = options.default_language ?? 'english'
  if (typeof defaultLanguage !== 'string') throw cannotCreate('default_language needs a string type')
  if (findLanguage(defaultLanguage) === undefined) throw cannotCreate('default_language is not valid')

  const languageOverride = options.language_override ?? 'language'
  if (typeof languageOverride !== 'string') throw cannotCreate('language_override must be a string')
  if (languageOverride === '' || languageOverride.startsWith('$') || languageOverride.includes('.')) {
    throw cannotCreate('language_override is not valid')
  }

  const version = options.textIndexVersion
  if (version !== undefined) {
    if (!isNumber(version)) throw cannotCreate("text index option 'textIndexVersion' must be a number")
    if (numberInt(version) === 2) {
      throw new CommandError(238, 'NotImplemented', 'devdb implements text index version 3 only')
    }
    if (numberInt(version) !== 3) throw cannotCreate(`bad textIndexVersion: ${numberInt(version)}`)
  }

  const name = typeof options.name === 'string' ? options.name : defaultIndexName(key)
  return { name, weights: sorted, defaultLanguage, languageOverride, extraKeys, extraBefore }
}

function checkWeightPath (field: string): void {
  if (field === '') throw cannotCreate('weight cannot be on an empty field')
  for (const part of field.split('.')) {
    if (part === '') throw cannotCreate('weight cannot have empty path component')
    if (part.startsWith('$')) throw cannotCreate('weight cannot have path component with $ prefix')
  }
}

/** std::map<std::string> order: byte-wise, which for UTF-16 code units below U+D800 is the same. */
function byteOrder (a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** The name drivers and the shell give an index: `field_value` pairs joined by `_`. */
export function defaultIndexName (key: Document): string {
  return Object.entries(key)
    .map(([f, v]) => `${f}_${String(v)}`)
    .join('_')
}

/** How listIndexes shows a text index. */
export function textIndexListing (spec: TextIndexSpec): Document {
  const extras = Object.entries(spec.extraKeys)
  const before = (spec as Partial<NormalizedTextIndex>).extraBefore ?? extras.length
  const key: Document = {}
  for (const [f, v] of extras.slice(0, before)) key[f] = v
  key._fts = 'text'
  key._ftsx = 1
  for (const [f, v] of extras.slice(before)) key[f] = v
  return {
    v: 2,
    key,
    name: spec.name,
    weights: { ...spec.weights },
    default_language: spec.defaultLanguage,
    language_override: spec.languageOverride,
    textIndexVersion: 3
  }
}
