/**
 * A collection in memory: documents in natural (insertion) order keyed by canonical `_id`,
 * plus its indexes. Stored documents are never mutated in place — writers swap in new objects —
 * so open cursors keep a consistent view of the documents they already hold.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { IndexDef, duplicateKeyError } from './index-def.js'
import { keyString } from './key-string.js'
import { isPlainDoc } from './paths.js'

export class Collection {
  readonly db: string
  readonly name: string
  options: Document
  readonly docs = new Map<string, Document>()
  readonly indexes: IndexDef[] = []
  /** insertion sequence per `_id` key: index lookups return equal keys in this (RecordId-like) order */
  private readonly seq = new Map<string, number>()
  private nextSeq = 0

  /** shared per server: serverStatus metrics.queryExecutor.scannedObjects */
  readonly stats: { scannedObjects: number }

  constructor (db: string, name: string, options: Document = {}, stats = { scannedObjects: 0 }) {
    this.stats = stats
    this.db = db
    this.name = name
    this.options = options
    this.indexes.push(new IndexDef({ v: 2, key: { _id: 1 }, name: '_id_' }))
  }

  get ns (): string { return `${this.db}.${this.name}` }

  /** Regular (non-_id) indexes */
  get userIndexes (): IndexDef[] { return this.indexes.slice(1) }

  findIndex (name: string): IndexDef | undefined {
    return this.indexes.find(i => i.name === name)
  }

  getById (id: unknown): Document | undefined {
    return this.docs.get(keyString(id))
  }

  /** Inserts a document that already has its `_id`; throws DuplicateKey (on `_id` or a unique index) leaving nothing changed. */
  insert (doc: Document): void {
    const idKey = keyString(doc._id)
    if (this.docs.has(idKey)) throw duplicateKeyError(this.ns, this.indexes[0], [doc._id])
    const keys = this.indexes.map(ix => ix.keysFor(doc))
    this.indexes.forEach((ix, i) => { ix.check(doc, idKey, this.ns, keys[i]) })
    this.indexes.forEach((ix, i) => { ix.add(doc, idKey, keys[i]) })
    this.docs.set(idKey, doc)
    this.seq.set(idKey, this.nextSeq++)
  }

  /** Replaces `oldDoc` (same `_id`) by `newDoc`, keeping its natural position; atomic w.r.t. unique indexes. */
  replace (oldDoc: Document, newDoc: Document): void {
    const idKey = keyString(oldDoc._id)
    const newKeys = this.indexes.map(ix => ix.keysFor(newDoc))
    this.indexes.forEach((ix, i) => { ix.check(newDoc, idKey, this.ns, newKeys[i]) })
    this.indexes.forEach((ix, i) => {
      ix.remove(oldDoc, idKey)
      ix.add(newDoc, idKey, newKeys[i])
    })
    this.docs.set(idKey, newDoc)
  }

  remove (doc: Document): void {
    const idKey = keyString(doc._id)
    for (const ix of this.indexes) ix.remove(doc, idKey)
    this.docs.delete(idKey)
    this.seq.delete(idKey)
  }

  addIndex (ix: IndexDef): void {
    // Build first, then verify uniqueness over existing data, so a failed build leaves no trace.
    for (const [idKey, doc] of this.docs) {
      const keys = ix.keysFor(doc)
      try {
        ix.check(doc, idKey, this.ns, keys)
      } catch (e) {
        ix.entries.clear()
        ix.prefix.clear()
        throw e
      }
      ix.add(doc, idKey, keys)
    }
    this.indexes.push(ix)
  }

  dropIndex (name: string): void {
    const i = this.indexes.findIndex(ix => ix.name === name)
    if (i > 0) this.indexes.splice(i, 1)
  }

  /**
   * Documents that may match `filter`, using `_id` or an index on an equality/$in predicate of a
   * top-level filter field; falls back to every document. Callers still apply the full filter.
   */
  candidates (filter: Document | undefined): Iterable<Document> {
    if (filter === undefined || filter === null) return this.docs.values()
    let best: Set<string> | undefined
    for (const ix of this.indexes) {
      if (!ix.lookupable) continue
      const field = ix.fields[0]
      if (!Object.prototype.hasOwnProperty.call(filter, field)) continue
      const keys = equalityKeys(filter[field])
      if (keys === undefined) continue
      const ids = new Set<string>()
      for (const k of keys) {
        const s = ix.prefix.get(k)
        if (s !== undefined) for (const id of s) ids.add(id)
      }
      if (best === undefined || ids.size < best.size) best = ids
      if (best.size <= 1) break
    }
    if (best === undefined) return this.docs.values()
    const out: Document[] = []
    // Natural (insertion) order among the candidates, as an unsorted scan would return them.
    const ids = best.size > 1 ? [...best].sort((a, b) => (this.seq.get(a) ?? 0) - (this.seq.get(b) ?? 0)) : best
    for (const id of ids) {
      const d = this.docs.get(id)
      if (d !== undefined) out.push(d)
    }
    return out
  }
}

/** Key strings a filter value selects by plain equality, or undefined if the index cannot answer it. */
function equalityKeys (v: unknown): string[] | undefined {
  if (isSimpleEqualityValue(v)) return [keyString(v)]
  if (isPlainDoc(v)) {
    const ks = Object.keys(v)
    if (ks.length === 1 && ks[0] === '$eq' && isSimpleEqualityValue(v.$eq)) return [keyString(v.$eq)]
    if (ks.length === 1 && ks[0] === '$in' && Array.isArray(v.$in) && v.$in.every(isSimpleEqualityValue)) return v.$in.map(keyString)
  }
  return undefined
}

function isSimpleEqualityValue (v: unknown): boolean {
  if (v === null || v === undefined || Array.isArray(v) || v instanceof RegExp) return false
  if (isPlainDoc(v)) return Object.keys(v).every(k => !k.startsWith('$'))
  const t = (v as { _bsontype?: string })._bsontype
  return t !== 'BSONRegExp' && t !== 'MinKey' && t !== 'MaxKey'
}

export function assertValidCollectionName (name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('$') || name.includes('\0') || name.startsWith('.') || name.startsWith('system.')) {
    throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid collection name: ${String(name)}`)
  }
  return name
}
