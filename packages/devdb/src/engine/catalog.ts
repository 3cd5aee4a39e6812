/** All databases and collections of one server, plus the conversion to/from the storage layer's state. */
import type { Document } from 'bson'
import type { JournalEntry, StoredState } from '../storage/types.js'
import { CommandError, Codes } from '../errors.js'
import { Collection, assertValidCollectionName, newScanStats } from './collection.js'
import { buildIndex } from './index-build.js'
import type { UndoSegment } from './undo.js'
import { keyString } from '../bson/key-string.js'

export class Catalog {
  readonly dbs = new Map<string, Map<string, Collection>>()
  /** serverStatus metrics.queryExecutor: documents (scannedObjects) and keys (scanned) examined */
  readonly stats = newScanStats()

  /** where changes are being recorded for undo (a write whose journal record is not yet on disk) */
  private undo: UndoSegment | undefined
  /** bumped for every document write while a transaction is open; a transaction remembers it at its start */
  writeSeq = 0
  /** open transactions: while there are any, every document write is noted in `lastWrite` */
  openTransactions = 0
  /** docKey → writeSeq of the document's last write (WriteConflict detection) */
  readonly lastWrite = new Map<string, number>()
  /** told the document as it is before each write to it (change streams' pre-images, change-streams/capture.ts) */
  preImageSink: ((ns: string, id: unknown, doc: Document | undefined) => void) | undefined
  private readonly beforeWrite = (c: Collection, id?: unknown): void => {
    this.undo?.saveCollection(c)
    if (id !== undefined && this.preImageSink !== undefined) this.preImageSink(c.ns, id, c.getById(id))
    if (this.openTransactions > 0 && id !== undefined) this.noteWrite(c.ns, id)
  }

  noteWrite (ns: string, id: unknown): void {
    this.lastWrite.set(docKey(ns, id), ++this.writeSeq)
  }

  /**
   * A private copy of every collection as it is now (O(1) each: copy-on-write B+trees), for a
   * transaction's snapshot reads and private writes.
   */
  fork (): Catalog {
    const f = new Catalog(this.freezeDocuments)
    for (const [db, colls] of this.dbs) {
      f.dbs.set(db, new Map([...colls].map(([name, c]) => [name, f.adopt(c.snapshot())])))
    }
    return f
  }

  /** @param freezeDocuments deep-freeze stored documents (see DevDbOptions.freezeDocuments) */
  constructor (readonly freezeDocuments = false) {}

  /** Records every following change into `segment` (undefined: stop recording). */
  recordUndo (segment: UndoSegment | undefined): void {
    this.undo = segment
  }

  private adopt (c: Collection): Collection {
    c.freezeDocuments = this.freezeDocuments
    c.beforeWrite = this.beforeWrite
    return c
  }

  get (db: string, coll: string): Collection | undefined {
    return this.dbs.get(db)?.get(coll)
  }

  /** Returns the collection, creating it (and journaling the creation) on first write. */
  getOrCreate (db: string, coll: string, journal: JournalEntry[]): Collection {
    const existing = this.get(db, coll)
    if (existing !== undefined) return existing
    return this.create(db, coll, {}, journal)
  }

  create (db: string, coll: string, options: Document, journal: JournalEntry[]): Collection {
    assertValidDbName(db)
    assertValidCollectionName(coll)
    if (this.dbs.get(db)?.has(coll) === true) {
      throw new CommandError(Codes.NamespaceExists, 'NamespaceExists', `Collection ${db}.${coll} already exists.`)
    }
    const c = this.adopt(new Collection(db, coll, options, this.stats))
    this.undo?.saveNamespaces(this.dbs)
    let m = this.dbs.get(db)
    if (m === undefined) this.dbs.set(db, (m = new Map()))
    m.set(coll, c)
    journal.push({ t: 'createCollection', db, coll, options: c.options })
    return c
  }

  drop (db: string, coll: string, journal: JournalEntry[]): boolean {
    const m = this.dbs.get(db)
    if (m === undefined || !m.has(coll)) return false
    this.undo?.saveNamespaces(this.dbs)
    m.delete(coll)
    if (m.size === 0) this.dbs.delete(db)
    journal.push({ t: 'dropCollection', db, coll })
    return true
  }

  dropDatabase (db: string, journal: JournalEntry[]): void {
    if (this.dbs.has(db)) this.undo?.saveNamespaces(this.dbs)
    if (this.dbs.delete(db)) journal.push({ t: 'dropDatabase', db })
  }

  collections (db: string): Collection[] {
    return [...(this.dbs.get(db)?.values() ?? [])]
  }

  /** Snapshot for the durability layer (shares document objects, which are never mutated in place). */
  toState (): StoredState {
    const collections = []
    for (const m of this.dbs.values()) {
      for (const c of m.values()) {
        collections.push({
          db: c.db,
          name: c.name,
          options: c.options,
          indexes: c.userIndexes.map((ix) => ({ ...ix.spec }) as { name: string; key: Document }),
          docs: [...c.documents()]
        })
      }
    }
    return { collections }
  }

  load (state: StoredState): void {
    for (const sc of state.collections) {
      let m = this.dbs.get(sc.db)
      if (m === undefined) this.dbs.set(sc.db, (m = new Map()))
      const c = this.adopt(new Collection(sc.db, sc.name, sc.options ?? {}, this.stats))
      m.set(sc.name, c)
      for (const d of sc.docs) c.insert(d)
      for (const spec of sc.indexes) c.addIndex(buildIndex(spec))
    }
  }
}

export function assertValidDbName (db: unknown): string {
  if (typeof db !== 'string' || db.length === 0 || /[/\\. "$\0*<>:|?]/.test(db) || db.length > 63) {
    throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid database name: '${String(db)}'`)
  }
  return db
}

/** Identifies one document across the server (namespace + canonical `_id`). */
export function docKey (ns: string, id: unknown): string {
  return `${ns}\u0000${keyString(id)}`
}
