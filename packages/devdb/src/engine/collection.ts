/**
 * A collection in memory: documents in a B+tree keyed by record id (ascending = natural,
 * insertion order) plus its ordered indexes, the `_id` index first. Stored documents are never
 * mutated in place — writers swap in new objects — so open cursors and snapshots keep a
 * consistent view of what they hold.
 */
import { BTree } from './btree.js'
import type { Document, ObjectId } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { IndexDef, type IndexKey } from './index-def.js'
import { parseCollation, type Collation } from '../collation/collation.js'
import { PlanCache } from '../plan/plan-cache.js'
import { deepFreeze } from '../bson/doc-copy.js'

/** Server-wide serverStatus metrics.queryExecutor counters: documents and index keys examined. */
export interface ScanStats {
  scannedObjects: number
  scanned: number
}

export function newScanStats (): ScanStats {
  return { scannedObjects: 0, scanned: 0 }
}

export class Collection {
  readonly db: string
  readonly name: string
  options: Document
  /** the collection's default collation (undefined = simple) */
  readonly collation?: Collation
  indexes: IndexDef[]
  /** record id → document; ascending record ids are the natural order */
  records: BTree<number, Document>
  /** next record id; saved and restored by the undo of a failed write */
  nextRecordId = 1
  /** called before any change (with the `_id` of a changed document): the catalog's undo and write tracking */
  beforeWrite: ((c: Collection, id?: unknown) => void) | undefined
  /** winning plans by query shape (mongod's plan cache); cleared when the indexes change */
  planCache = new PlanCache()

  /** shared per server: serverStatus metrics.queryExecutor */
  readonly stats: ScanStats
  /** deep-freeze every stored document (tests: an in-place change then throws instead of corrupting data) */
  freezeDocuments = false

  constructor (db: string, name: string, options: Document = {}, stats: ScanStats = newScanStats()) {
    this.stats = stats
    this.db = db
    this.name = name
    this.collation = options.collation !== undefined ? parseCollation(options.collation) : undefined
    this.options = this.collation !== undefined ? { ...options, collation: this.collation.spec } : options
    const idSpec: Document = { v: 2, key: { _id: 1 }, name: '_id_' }
    if (this.collation !== undefined) idSpec.collation = this.collation.spec
    this.indexes = [new IndexDef(idSpec, undefined, false, this.collation)]
    this.records = new BTree<number, Document>(undefined, (a, b) => a - b, 128)
  }

  get ns (): string {
    return `${this.db}.${this.name}`
  }

  get size (): number {
    return this.records.size
  }

  /** Regular (non-_id) indexes */
  get userIndexes (): IndexDef[] {
    return this.indexes.slice(1)
  }

  findIndex (name: string): IndexDef | undefined {
    return this.indexes.find((i) => i.name === name)
  }

  /** Documents in natural order. */
  documents (): IterableIterator<Document> {
    return this.records.values()
  }

  /** Record id of the document with this `_id` (through the `_id` index). */
  ridOf (id: unknown): number | undefined {
    const key = [id]
    const ix = this.indexes[0]
    const hit = ix.tree.getPairOrNextHigher([id, -Infinity])
    if (hit === undefined || ix.compareField(0, hit[0][0], key[0]) !== 0) return undefined
    return hit[0][1] as number
  }

  getById (id: unknown): Document | undefined {
    const rid = this.ridOf(id)
    return rid === undefined ? undefined : this.records.get(rid)
  }

  /** Inserts a document that already has its `_id`; throws DuplicateKey (on `_id` or a unique index) leaving nothing changed. */
  insert (doc: Document): void {
    this.beforeWrite?.(this, doc._id)
    const rid = this.nextRecordId++
    const keys = this.indexes.map((ix) => ix.keysFor(doc))
    this.indexes.forEach((ix, i) => {
      ix.check(doc, keys[i], rid, this.ns)
    })
    this.indexes.forEach((ix, i) => {
      ix.add(keys[i], rid)
    })
    this.records.set(rid, this.freezeDocuments ? deepFreeze(doc) : doc)
  }

  /** Replaces `oldDoc` (same `_id`) by `newDoc`, keeping its natural position; atomic w.r.t. unique indexes. */
  replace (oldDoc: Document, newDoc: Document): void {
    this.beforeWrite?.(this, oldDoc._id)
    const rid = this.requireRid(oldDoc)
    // An index whose keys the write left as they were (most, for most updates) is not touched.
    const changed: Array<[IndexDef, IndexKey[], IndexKey[]]> = []
    for (const ix of this.indexes) {
      const oldKeys = ix.keysFor(oldDoc)
      const newKeys = ix.keysFor(newDoc)
      if (!sameKeys(oldKeys, newKeys)) changed.push([ix, oldKeys, newKeys])
    }
    for (const [ix, , newKeys] of changed) ix.check(newDoc, newKeys, rid, this.ns)
    for (const [ix, oldKeys, newKeys] of changed) {
      ix.remove(oldKeys, rid)
      ix.add(newKeys, rid)
    }
    this.records.set(rid, this.freezeDocuments ? deepFreeze(newDoc) : newDoc)
  }

  remove (doc: Document): void {
    this.beforeWrite?.(this, doc._id)
    const rid = this.requireRid(doc)
    for (const ix of this.indexes) ix.remove(ix.keysFor(doc), rid)
    this.records.delete(rid)
  }

  addIndex (ix: IndexDef): void {
    this.beforeWrite?.(this)
    // Build first, then verify uniqueness over existing data, so a failed build leaves no trace.
    try {
      this.records.forEachPair((rid, doc) => {
        const keys = ix.keysFor(doc)
        ix.check(doc, keys, rid, this.ns)
        ix.add(keys, rid)
      })
    } catch (e) {
      ix.tree.clear()
      throw e
    }
    this.indexes.push(ix)
    this.planCache.clear()
  }

  dropIndex (name: string): void {
    this.beforeWrite?.(this)
    const i = this.indexes.findIndex((ix) => ix.name === name)
    if (i > 0) this.indexes.splice(i, 1)
    this.planCache.clear()
  }

  /**
   * An independent copy of this collection — documents and every index — as it is now. Taking
   * it is O(1): the B+trees are shared copy-on-write (`sorted-btree` clone), and a later write
   * to either side copies only the tree nodes it touches. The copy is a full Collection: the
   * planner queries it like any other, and writes to it never reach this one.
   */
  snapshot (): Collection {
    const copy = Object.create(Collection.prototype) as Collection
    Object.assign(copy, this)
    copy.records = this.records.clone()
    copy.indexes = this.indexes.map((ix) => ix.snapshot())
    copy.options = { ...this.options }
    copy.planCache = new PlanCache()
    copy.beforeWrite = undefined
    return copy
  }

  /**
   * Takes over the documents and index contents of `from`, a snapshot of this collection that
   * was written privately (a transaction's commit): in place, so cursors and plans stay valid.
   */
  adoptContents (from: Collection): void {
    this.beforeWrite?.(this)
    this.records = from.records
    this.nextRecordId = from.nextRecordId
    this.indexes.forEach((ix, i) => {
      ix.tree = from.indexes[i].tree
      ix.multikey = from.indexes[i].multikey
    })
    this.planCache.clear()
  }

  private requireRid (doc: Document): number {
    const rid = this.ridOf(doc._id)
    if (rid === undefined) {
      throw new CommandError(
        Codes.InternalError,
        'InternalError',
        `no document with _id ${String(doc._id)} in ${this.ns}`
      )
    }
    return rid
  }
}

export function assertValidCollectionName (name: unknown): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.includes('$') ||
    name.includes('\0') ||
    name.startsWith('.') ||
    name.startsWith('system.')
  ) {
    throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid collection name: ${String(name)}`)
  }
  return name
}

/**
 * The same index keys to the letter: equal values of the same type (an int replaced by an equal
 * double is a new key — the entry holds the value). Anything not plainly comparable counts as changed.
 */
function sameKeys (a: IndexKey[], b: IndexKey[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    const y = b[i]
    if (x.length !== y.length) return false
    for (let j = 0; j < x.length; j++) if (!sameKeyValue(x[j], y[j])) return false
  }
  return true
}

function sameKeyValue (x: unknown, y: unknown): boolean {
  // Object.is: 0 and -0 are equal values but different keys.
  if (x === y) return Object.is(x, y)
  if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime()
  const bx = (x as { _bsontype?: string } | null)?._bsontype
  if (bx === 'ObjectId' && (y as { _bsontype?: string } | null)?._bsontype === 'ObjectId') {
    return (x as ObjectId).equals(y as ObjectId)
  }
  return false
}
