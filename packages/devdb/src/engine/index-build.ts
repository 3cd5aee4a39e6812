/** Validation of createIndexes specifications and construction of IndexDef objects (MongoDB's rules and messages). */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { IndexDef } from './index-def.js'
import { isPlainDoc } from '../bson/paths.js'
import { compileFilter } from '../query/options.js'
import { validateFilter } from '../query/validate.js'
import { normalizeTextIndex, textIndexListing, validateTextDocument } from '../text/index.js'
import { parseCollation } from '../collation/collation.js'
import type { TextIndexSpec } from '../text/types.js'

const CannotCreateIndex = (msg: string): CommandError => new CommandError(67, 'CannotCreateIndex', msg)

const KNOWN_OPTIONS = new Set([
  'v',
  'key',
  'name',
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'background',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  'hidden',
  'collation',
  'ns'
])

export function defaultIndexName (key: Document): string {
  return Object.keys(key)
    .map((k) => `${k}_${String(key[k])}`)
    .join('_')
}

export class TextIndexDef extends IndexDef {
  readonly text: TextIndexSpec
  constructor (spec: Document, text: TextIndexSpec) {
    super(spec, undefined, true)
    this.text = text
  }

  /** Text indexes enforce no uniqueness, but refuse documents mongod could not index. */
  override check (doc: Document): void {
    validateTextDocument(doc, this.text)
  }
}

/** Builds an index from a createIndexes element (or a persisted listing). */
export function buildIndex (raw: Document): IndexDef {
  if (!isPlainDoc(raw.key) || Object.keys(raw.key).length === 0) {
    throw CannotCreateIndex('Index keys cannot be empty.')
  }
  if (typeof raw.name !== 'string' || raw.name.length === 0) {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      "The 'name' field is a required property of an index specification"
    )
  }
  for (const k of Object.keys(raw)) {
    if (!KNOWN_OPTIONS.has(k)) {
      throw new CommandError(
        Codes.InvalidIndexSpecificationOption,
        'InvalidIndexSpecificationOption',
        `The field '${k}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`
      )
    }
  }
  const key = raw.key as Document
  const isText = Object.values(key).some((v) => v === 'text') || key._fts === 'text'
  const collation = raw.collation !== undefined ? parseCollation(raw.collation, 'collation') : undefined
  if (isText) {
    if (collation !== undefined) throw CannotCreateIndex('devdb does not support collations on text indexes')
    return buildTextIndex(raw)
  }
  for (const [f, v] of Object.entries(key)) {
    if (typeof v === 'string') throw CannotCreateIndex(`devdb does not support '${v}' indexes (field '${f}')`)
    if (!isNumeric(v) || toNumber(v) === 0 || Number.isNaN(toNumber(v))) {
      throw CannotCreateIndex(
        `Values in the index key pattern can only be non-zero numbers or strings, found ${f}: ${String(v)}`
      )
    }
    if (f === '' || f.startsWith('$') || f.split('.').some((p) => p === '')) {
      throw CannotCreateIndex(`Index key contains an illegal field name: '${f}'`)
    }
  }
  const spec: Document = { v: 2, key: normalizeKey(key), name: raw.name }
  for (const opt of ['unique', 'sparse']) {
    if (raw[opt] !== undefined) {
      if (typeof raw[opt] !== 'boolean' && !isNumeric(raw[opt])) {
        throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', `The field '${opt}' must be a boolean`)
      }
      if (raw[opt] === true || (isNumeric(raw[opt]) && toNumber(raw[opt]) !== 0)) spec[opt] = true
    }
  }
  if (raw.unique === true && raw.name === '_id_') delete spec.unique
  let partial: ((d: Document) => boolean) | undefined
  if (raw.partialFilterExpression !== undefined) {
    if (!isPlainDoc(raw.partialFilterExpression)) {
      throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'partialFilterExpression must be an object')
    }
    if (spec.sparse === true) throw CannotCreateIndex('cannot mix "partialFilterExpression" and "sparse" options')
    validateFilter(raw.partialFilterExpression)
    partial = compileFilter(raw.partialFilterExpression)
    spec.partialFilterExpression = raw.partialFilterExpression
  }
  if (raw.expireAfterSeconds !== undefined) {
    const e = raw.expireAfterSeconds
    if (!isNumeric(e) || !Number.isFinite(toNumber(e))) {
      throw CannotCreateIndex("TTL index 'expireAfterSeconds' option must be numeric")
    }
    if (Object.keys(key).length > 1) {
      throw CannotCreateIndex('TTL indexes are single-field indexes, compound indexes do not support TTL')
    }
    const n = Math.trunc(toNumber(e))
    if (n < 0 || n > 2147483647) {
      throw CannotCreateIndex(
        "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number"
      )
    }
    spec.expireAfterSeconds = n
  }
  if (raw.hidden === true) spec.hidden = true
  if (collation !== undefined) spec.collation = collation.spec
  return new IndexDef(spec, partial, false, collation)
}

function normalizeKey (key: Document): Document {
  const out: Document = {}
  for (const [k, v] of Object.entries(key)) out[k] = typeof v === 'number' ? v : toNumber(v)
  return out
}

function buildTextIndex (raw: Document): IndexDef {
  let key = raw.key as Document
  if (key._fts === 'text') {
    // A persisted listing: rebuild the user's key pattern from the weights.
    const rebuilt: Document = {}
    for (const [k, v] of Object.entries(key)) {
      if (k === '_fts') for (const f of Object.keys(raw.weights ?? {})) rebuilt[f] = 'text'
      else if (k !== '_ftsx') rebuilt[k] = v
    }
    key = rebuilt
  }
  const options: Document = { ...raw }
  delete options.key
  const text = normalizeTextIndex(key, options)
  text.name = raw.name
  const listing = textIndexListing(text)
  const spec: Document = { v: 2, key: listing.key, name: raw.name, ...withoutKeys(listing, ['v', 'key', 'name']) }
  return new TextIndexDef(spec, text)
}

function withoutKeys (d: Document, keys: string[]): Document {
  const out: Document = {}
  for (const [k, v] of Object.entries(d)) if (!keys.includes(k)) out[k] = v
  return out
}

/** Options that must match for two index specs to be "the same index". */
export function sameOptions (a: Document, b: Document): boolean {
  const strip = (d: Document): string => JSON.stringify(withoutKeys(d, ['v', 'name', 'key', 'background']))
  return strip(a) === strip(b)
}
