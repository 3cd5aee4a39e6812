/**
 * Collations as MongoDB 7.0 parses, validates and normalizes them, evaluated by Intl.Collator
 * (Node ships full ICU). Options Intl.Collator cannot express are refused with NotImplemented
 * (238) instead of being silently approximated; invalid specs get mongod's own codes.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { isNumeric, toNumber, bsonTypeName } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'
import { formatValue } from '../bson/format-value.js'
import { MONGO_LOCALES, parseLocaleId, suggestLocale } from './locales.js'

/** MongoDB 7.0 reports the ICU version it was built with; specs carrying another are refused. */
export const COLLATION_VERSION = '57.1'

const FIELDS = [
  'locale',
  'caseLevel',
  'caseFirst',
  'strength',
  'numericOrdering',
  'alternate',
  'maxVariable',
  'normalization',
  'backwards',
  'version'
]
const ENUMS: Record<string, string[]> = {
  caseFirst: ['upper', 'lower', 'off'],
  alternate: ['non-ignorable', 'shifted'],
  maxVariable: ['punct', 'space']
}
const BOOLS = new Set(['caseLevel', 'numericOrdering', 'normalization', 'backwards'])

const notImplemented = (msg: string): CommandError =>
  new CommandError(Codes.NotImplemented, 'NotImplemented', `devdb cannot evaluate ${msg} with Intl.Collator`)

export class Collation {
  /** the normalized spec, as listIndexes/listCollections show it */
  readonly spec: Document
  readonly compare: (a: string, b: string) => number
  private readonly key: string

  constructor (spec: Document, collator: Intl.Collator) {
    this.spec = spec
    this.compare = collator.compare
    this.key = JSON.stringify(spec)
  }

  equals (other: Collation | undefined): boolean {
    return other !== undefined && other.key === this.key
  }
}

/** Two collations (undefined = simple) select the same strings and order. */
export function sameCollation (a: Collation | undefined, b: Collation | undefined): boolean {
  return a === undefined ? b === undefined : a.equals(b)
}

const cache = new Map<string, Collation>()

/** Parses a `collation` argument; `undefined` means the simple (binary) collation. */
export function parseCollation (raw: unknown, field = 'collation'): Collation | undefined {
  if (!isPlainDoc(raw)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${bsonTypeName(raw)}', expected type 'object'`
    )
  }
  checkShape(raw)
  const locale = raw.locale as string
  if (locale === 'simple') return undefined
  const cacheKey = JSON.stringify(raw)
  const hit = cache.get(cacheKey)
  if (hit !== undefined) return hit
  const parsed = parseLocaleId(locale)
  if (locale === '') {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Field 'locale' cannot be the empty string in: ${formatValue(raw)}`
    )
  }
  if (parsed === undefined || !MONGO_LOCALES.has(parsed.base)) {
    const hint = suggestLocale(locale)
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Field 'locale' is invalid in: ${formatValue(raw)}${hint !== undefined ? `. Did you mean '${hint}'?` : ''}`
    )
  }
  const base = new Intl.Collator(parsed.bcp47)
  if (parsed.variant !== undefined && base.resolvedOptions().collation === 'default') {
    throw notImplemented(`the '${parsed.variant}' collation variant of '${parsed.base}'`)
  }
  const spec = normalize(raw, base)
  validateCombination(spec, raw)
  const collation = new Collation(spec, toIntl(parsed.bcp47, spec, base))
  cache.set(cacheKey, collation)
  return collation
}

function checkShape (raw: Document): void {
  for (const k of Object.keys(raw)) {
    if (!FIELDS.includes(k)) {
      throw new CommandError(40415, 'Location40415', `BSON field 'collation.${k}' is an unknown field.`)
    }
  }
  if (raw.locale === undefined) {
    throw new CommandError(40414, 'Location40414', "BSON field 'collation.locale' is missing but a required field")
  }
  for (const [k, v] of Object.entries(raw)) {
    const expected = k === 'strength' ? 'number' : BOOLS.has(k) ? 'bool' : 'string'
    const ok =
      expected === 'number' ? isNumeric(v) : expected === 'bool' ? typeof v === 'boolean' : typeof v === 'string'
    if (!ok) {
      const types = expected === 'number' ? "types '[long, int, decimal, double]'" : `type '${expected}'`
      throw new CommandError(
        Codes.TypeMismatch,
        'TypeMismatch',
        `BSON field 'collation.${k}' is the wrong type '${bsonTypeName(v)}', expected ${types}`
      )
    }
    if (ENUMS[k] !== undefined && !ENUMS[k].includes(v)) {
      throw new CommandError(
        Codes.BadValue,
        'BadValue',
        `Enumeration value '${String(v)}' for field 'collation.${k}' is not a valid value.`
      )
    }
  }
  if (raw.strength !== undefined) {
    const s = toNumber(raw.strength)
    if (s < 0) {
      throw new CommandError(51024, 'Location51024', `BSON field 'strength' value must be >= 0, actual value '${s}'`)
    }
    if (s > 5) {
      throw new CommandError(51024, 'Location51024', `BSON field 'strength' value must be <= 5, actual value '${s}'`)
    }
  }
}

/** The full spec mongod reports: given options over the locale's defaults, in mongod's field order. */
function normalize (raw: Document, base: Intl.Collator): Document {
  const defaults = base.resolvedOptions()
  const localeBackwards = base.compare('côte', 'coté') < 0
  if (raw.version !== undefined && raw.version !== COLLATION_VERSION) {
    throw new CommandError(
      Codes.IncompatibleCollationVersion,
      'IncompatibleCollationVersion',
      `Requested collation version ${String(raw.version)} but the only available collator version was ${COLLATION_VERSION}. Requested collation spec: ${formatValue(raw)}`
    )
  }
  return {
    locale: raw.locale,
    caseLevel: raw.caseLevel ?? false,
    caseFirst:
      raw.caseFirst ?? (defaults.caseFirst === 'upper' || defaults.caseFirst === 'lower' ? defaults.caseFirst : 'off'),
    strength: raw.strength !== undefined ? Math.trunc(toNumber(raw.strength)) : 3,
    numericOrdering: raw.numericOrdering ?? false,
    alternate: raw.alternate ?? (defaults.ignorePunctuation ? 'shifted' : 'non-ignorable'),
    maxVariable: raw.maxVariable ?? 'punct',
    normalization: raw.normalization ?? false,
    backwards: raw.backwards ?? localeBackwards,
    version: COLLATION_VERSION
  }
}

function validateCombination (spec: Document, raw: Document): void {
  if (spec.backwards === true && spec.strength === 1) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `'backwards' is invalid with 'strength' of 1 in: ${formatValue(raw)}`
    )
  }
  if (spec.caseFirst !== 'off' && spec.caseLevel !== true && spec.strength < 3) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatValue(raw)}`
    )
  }
}

/**
 * Maps a normalized spec onto Intl.Collator options. Intl has four sensitivities (primary,
 * primary+case, secondary, tertiary), `ignorePunctuation` (ICU's alternate=shifted with
 * maxVariable=punct), `caseFirst` and `numeric`; it always normalizes (canonically equivalent
 * strings compare equal), and French secondary ordering only where the locale has it.
 */
function toIntl (bcp47: string, spec: Document, base: Intl.Collator): Intl.Collator {
  let sensitivity: Intl.CollatorOptions['sensitivity']
  if (spec.strength === 1) sensitivity = spec.caseLevel === true ? 'case' : 'base'
  else if (spec.strength === 2 && spec.caseLevel !== true) sensitivity = 'accent'
  else if (spec.strength === 3 && spec.caseLevel !== true) sensitivity = 'variant'
  else if (spec.strength > 3) throw notImplemented(`strength ${String(spec.strength)}`)
  else throw notImplemented(`caseLevel with strength ${String(spec.strength)}`)
  if (spec.alternate === 'shifted' && spec.maxVariable === 'space') {
    throw notImplemented("maxVariable 'space' with alternate 'shifted'")
  }
  const localeBackwards = base.compare('côte', 'coté') < 0
  if (spec.backwards !== localeBackwards) {
    throw notImplemented(`backwards: ${String(spec.backwards)} for locale '${String(spec.locale)}'`)
  }
  return new Intl.Collator(bcp47, {
    usage: 'sort',
    sensitivity,
    ignorePunctuation: spec.alternate === 'shifted',
    numeric: spec.numericOrdering === true,
    caseFirst: spec.caseFirst === 'off' ? 'false' : spec.caseFirst
  })
}

/**
 * The string comparison of the collation mingo options carry (see prepareFilter), if any.
 * Read by shape: mingo's updater copies the collation object's fields into a plain object.
 */
export function collatorOf (options: unknown): ((a: string, b: string) => number) | undefined {
  const c = (options as { collation?: { compare?: unknown } } | undefined)?.collation
  return typeof c?.compare === 'function' ? (c.compare as (a: string, b: string) => number) : undefined
}

/**
 * The collation an operation runs with: its own `collation` argument (`{ locale: 'simple' }`
 * explicitly chooses binary comparison) or else the collection's default.
 */
export function effectiveCollation (
  raw: unknown,
  fallback: Collation | undefined,
  field = 'collation'
): Collation | undefined {
  if (raw === undefined || raw === null) return fallback
  return parseCollation(raw, field)
}
