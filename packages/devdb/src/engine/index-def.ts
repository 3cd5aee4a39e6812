/**
 * One index of a collection: its listIndexes spec plus a B+tree (`sorted-btree`) of entries
 * `[v0, …, vn-1, recordId]` in the index's order — BSON order per field, descending fields
 * reversed, strings by the index's collation — so equality, ranges, `$in` points and sorts are
 * answered by seeks and ordered walks. The tree also enforces uniqueness. `clone()` of a tree is
 * O(1) copy-on-write, which makes collection snapshots cheap.
 */
import { BTree } from './btree.js'
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import type { Collation } from '../collation/collation.js'
import { formatValue } from '../bson/format-value.js'
import { EMPTY_ARRAY_KEY, compareKeyValues, entryComparator } from '../bson/key-compare.js'
import { isPlainDoc } from '../bson/paths.js'

/** One key of a document in an index: a value per indexed field. */
export type IndexKey = unknown[]
export type IndexEntry = unknown[]

const NODE_SIZE = 128

export class IndexDef {
  readonly name: string
  readonly key: Document
  readonly spec: Document // as listIndexes shows it
  readonly fields: string[]
  readonly dirs: Array<1 | -1>
  readonly unique: boolean
  readonly sparse: boolean
  readonly partial?: (doc: Document) => boolean
  readonly expireAfterSeconds?: number
  readonly isText: boolean
  readonly collation?: Collation
  /** per field: some document has (had) an array on its path, as mongod's multikeyPaths */
  multikey: boolean[]
  tree: BTree<IndexEntry, undefined>

  constructor (spec: Document, partial?: (doc: Document) => boolean, isText = false, collation?: Collation) {
    this.spec = spec
    this.name = spec.name
    this.key = spec.key
    this.fields = Object.keys(spec.key)
    this.dirs = this.fields.map((f) => (typeof spec.key[f] === 'number' && spec.key[f] < 0 ? -1 : 1))
    this.unique = spec.unique === true || spec.name === '_id_'
    this.sparse = spec.sparse === true
    this.partial = partial
    this.isText = isText
    this.collation = collation
    if (typeof spec.expireAfterSeconds === 'number') this.expireAfterSeconds = spec.expireAfterSeconds
    this.multikey = this.fields.map(() => false)
    this.tree = new BTree<IndexEntry, undefined>(undefined, entryComparator(this.dirs, collation?.compare), NODE_SIZE)
  }

  get isMultikey (): boolean {
    return this.multikey.some(Boolean)
  }

  /** Compares two keys' values (not record ids) as this index does, ignoring directions. */
  compareField (_i: number, a: unknown, b: unknown): number {
    return compareKeyValues(a, b, this.collation?.compare)
  }

  /** Index keys of a document (multikey: one per array element; missing → null; [] → undefined). */
  keysFor (doc: Document): IndexKey[] {
    if (this.isText) return []
    if (this.partial !== undefined && !this.partial(doc)) return []
    const perField: unknown[][] = []
    const arrayFields: string[] = []
    let anyPresent = false
    this.fields.forEach((f, i) => {
      const { values, multikey } = indexValues(doc, f)
      if (multikey) {
        arrayFields.push(f)
        this.multikey[i] = true
      }
      if (values.length > 0) anyPresent = true
      perField.push(values.length > 0 ? values : [null])
    })
    if (this.sparse && !anyPresent) return []
    if (arrayFields.length > 1) {
      throw new CommandError(
        Codes.CannotIndexParallelArrays,
        'CannotIndexParallelArrays',
        `cannot index parallel arrays [${arrayFields[1].split('.').pop() ?? ''}] [${arrayFields[0].split('.').pop() ?? ''}]`
      )
    }
    let keys: IndexKey[] = [[]]
    for (const vals of perField) {
      const next: IndexKey[] = []
      for (const k of keys) for (const v of vals) next.push([...k, v])
      keys = next
    }
    return keys
  }

  /** Throws DuplicateKey if a key of the document at `rid` already belongs to another record. */
  check (_doc: Document, keys: IndexKey[], rid: number, ns: string): void {
    if (!this.unique) return
    for (const k of keys) {
      for (const entry of this.tree.entries([...k, -Infinity])) {
        if (!this.sameValues(entry[0], k)) break
        if (entry[0][k.length] !== rid) throw duplicateKeyError(ns, this, k)
      }
    }
  }

  add (keys: IndexKey[], rid: number): void {
    for (const k of keys) this.tree.set([...k, rid], undefined)
  }

  remove (keys: IndexKey[], rid: number): void {
    for (const k of keys) this.tree.delete([...k, rid])
  }

  /** An independent copy sharing the tree copy-on-write (O(1)). */
  snapshot (): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this
    Object.assign(copy, this)
    copy.tree = this.tree.clone()
    copy.multikey = [...this.multikey]
    return copy
  }

  private sameValues (entry: IndexEntry, k: IndexKey): boolean {
    for (let i = 0; i < k.length; i++) if (this.compareField(i, entry[i], k[i]) !== 0) return false
    return true
  }
}

/** Values of a dotted path for index keys, flattening arrays one level as mongod's key generator does. */
function indexValues (doc: unknown, path: string): { values: unknown[]; multikey: boolean } {
  const out: unknown[] = []
  const state = { multikey: false }
  collect(doc, path.split('.'), 0, out, state)
  return { values: out, multikey: state.multikey }
}

function collect (value: unknown, parts: string[], i: number, out: unknown[], state: { multikey: boolean }): void {
  if (i === parts.length) {
    if (Array.isArray(value)) {
      state.multikey = true
      if (value.length === 0) out.push(EMPTY_ARRAY_KEY)
      else for (const el of value) out.push(el)
    } else out.push(value)
    return
  }
  if (Array.isArray(value)) {
    state.multikey = true
    const part = parts[i]
    if (/^\d+$/.test(part)) {
      if (Number(part) < value.length) collect(value[Number(part)], parts, i + 1, out, state)
      return
    }
    for (const el of value) if (isPlainDoc(el)) collect(el, parts, i, out, state)
    return
  }
  if (isPlainDoc(value) && Object.prototype.hasOwnProperty.call(value, parts[i]) && value[parts[i]] !== undefined) {
    collect(value[parts[i]], parts, i + 1, out, state)
  }
}

export function duplicateKeyError (ns: string, index: IndexDef, values: unknown[]): CommandError {
  const keyPattern: Document = {}
  const keyValue: Document = {}
  const shown = values.map((v) => (v === EMPTY_ARRAY_KEY ? undefined : v))
  index.fields.forEach((f, i) => {
    keyPattern[f] = index.key[f]
    keyValue[f] = shown[i] ?? null
  })
  const text = index.fields
    .map((f, i) => `${f}: ${values[i] === EMPTY_ARRAY_KEY ? 'undefined' : formatValue(shown[i])}`)
    .join(', ')
  const collation = index.collation !== undefined ? ' collation: ' + formatValue(index.collation.spec) : ''
  return new CommandError(
    Codes.DuplicateKey,
    'DuplicateKey',
    `E11000 duplicate key error collection: ${ns} index: ${index.name}${collation} dup key: { ${text} }`,
    { keyPattern, keyValue }
  )
}
