/**
 * One index of a collection: its listIndexes spec plus an in-memory hash map from canonical
 * key strings to the `_id` keys of the documents carrying that key. The map both enforces
 * uniqueness and answers equality lookups without scanning.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { keyString } from './key-string.js'
import { valuesAtPath } from './paths.js'

export interface IndexKey { ks: string, values: unknown[] }

export class IndexDef {
  readonly name: string
  readonly key: Document
  readonly spec: Document // as listIndexes shows it
  readonly fields: string[]
  readonly unique: boolean
  readonly sparse: boolean
  readonly partial?: (doc: Document) => boolean
  readonly expireAfterSeconds?: number
  readonly isText: boolean
  /** full key → ids */
  readonly entries = new Map<string, Set<string>>()
  /** first-field key → ids (same map as `entries` for single-field indexes) */
  readonly prefix: Map<string, Set<string>>

  constructor (spec: Document, partial?: (doc: Document) => boolean, isText = false) {
    this.spec = spec
    this.name = spec.name
    this.key = spec.key
    this.fields = Object.keys(spec.key)
    this.unique = spec.unique === true || spec.name === '_id_'
    this.sparse = spec.sparse === true
    this.partial = partial
    this.isText = isText
    if (typeof spec.expireAfterSeconds === 'number') this.expireAfterSeconds = spec.expireAfterSeconds
    this.prefix = this.fields.length === 1 ? this.entries : new Map()
  }

  /** Usable for equality lookups: every document is in it and its first field is a plain key. */
  get lookupable (): boolean {
    return !this.isText && !this.sparse && this.partial === undefined
  }

  /** Index keys of a document (multikey: one per array element; missing → null). */
  keysFor (doc: Document): IndexKey[] {
    if (this.isText) return []
    if (this.partial !== undefined && !this.partial(doc)) return []
    const perField: unknown[][] = []
    let anyPresent = false
    for (const f of this.fields) {
      const raw = valuesAtPath(doc, f)
      const vals: unknown[] = []
      for (const v of raw) {
        if (Array.isArray(v)) {
          if (v.length === 0) vals.push(undefined)
          else for (const el of v) vals.push(el)
        } else vals.push(v)
      }
      if (vals.length > 0) anyPresent = true
      perField.push(vals.length > 0 ? vals : [null])
    }
    if (this.sparse && !anyPresent) return []
    let combos: unknown[][] = [[]]
    for (const vals of perField) {
      const next: unknown[][] = []
      for (const c of combos) for (const v of vals) next.push([...c, v])
      combos = next
    }
    const seen = new Set<string>()
    const out: IndexKey[] = []
    for (const values of combos) {
      const ks = values.map(v => v === undefined ? 'U' : keyString(v)).join('|')
      if (seen.has(ks)) continue
      seen.add(ks)
      out.push({ ks, values: values.map(v => v === undefined ? null : v) })
    }
    return out
  }

  /** Throws DuplicateKey if any key of `doc` belongs to another document. */
  check (doc: Document, idKey: string, ns: string, keys = this.keysFor(doc)): void {
    if (!this.unique) return
    for (const k of keys) {
      const ids = this.entries.get(k.ks)
      if (ids === undefined) continue
      for (const other of ids) {
        if (other !== idKey) throw duplicateKeyError(ns, this, k.values)
      }
    }
  }

  add (doc: Document, idKey: string, keys = this.keysFor(doc)): void {
    for (const k of keys) {
      addTo(this.entries, k.ks, idKey)
      if (this.prefix !== this.entries) addTo(this.prefix, k.ks.split('|')[0], idKey)
    }
  }

  remove (doc: Document, idKey: string, keys = this.keysFor(doc)): void {
    for (const k of keys) {
      removeFrom(this.entries, k.ks, idKey)
      if (this.prefix !== this.entries) removeFrom(this.prefix, k.ks.split('|')[0], idKey)
    }
  }
}

function addTo (m: Map<string, Set<string>>, k: string, id: string): void {
  let s = m.get(k)
  if (s === undefined) m.set(k, s = new Set())
  s.add(id)
}

function removeFrom (m: Map<string, Set<string>>, k: string, id: string): void {
  const s = m.get(k)
  if (s === undefined) return
  s.delete(id)
  if (s.size === 0) m.delete(k)
}

export function duplicateKeyError (ns: string, index: IndexDef, values: unknown[]): CommandError {
  const keyPattern: Document = {}
  const keyValue: Document = {}
  index.fields.forEach((f, i) => {
    keyPattern[f] = index.key[f]
    keyValue[f] = values[i]
  })
  const shown = index.fields.map((f, i) => `${f}: ${formatValue(values[i])}`).join(', ')
  return new CommandError(Codes.DuplicateKey, 'DuplicateKey',
    `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: { ${shown} }`,
    { keyPattern, keyValue })
}

/** Values as mongod prints them in E11000 messages. */
export function formatValue (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v instanceof Date) return `new Date(${v.getTime()})`
  if (Array.isArray(v)) return '[ ' + v.map(formatValue).join(', ') + ' ]'
  const t = (v as { _bsontype?: string })._bsontype
  if (t === 'ObjectId') return `ObjectId('${(v as { toHexString: () => string }).toHexString()}')`
  if (t === 'Long') return String(v)
  if (t === 'Decimal128') return `NumberDecimal("${String(v)}")`
  if (t !== undefined) return String(v)
  const o = v as Record<string, unknown>
  const parts = Object.keys(o).map(k => `${k}: ${formatValue(o[k])}`)
  return parts.length === 0 ? '{}' : '{ ' + parts.join(', ') + ' }'
}
