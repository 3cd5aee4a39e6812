/**
 * Rebuilds StoredState by applying JournalEntry values in order (recovery and compaction).
 *
 * Every entry is an assignment (put a whole document, delete, create, drop), so applying an
 * entry that the snapshot already reflects is harmless: a snapshot taken while commits are
 * queued and the same commits replayed from the next journal still give the same state.
 */
import { serialize, type Document } from 'bson'
import type { JournalEntry, StoredCollection, StoredIndex, StoredState } from './types.js'

interface CollectionState {
  db: string
  name: string
  options: Document
  indexes: Map<string, StoredIndex>
  /** Insertion order is kept, matching MongoDB's natural order (a replace keeps its place). */
  docs: Map<string, Document>
}

/**
 * Canonical key for an _id value: the BSON bytes of `{ _id }`. Two _id values are the same
 * document exactly when their BSON encodings are equal (numbers arrive already promoted to JS
 * numbers, so 1 and 1.0 share a key, as MongoDB treats them as equal).
 */
export function idKey (id: unknown): string {
  return Buffer.from(serialize({ _id: id }, { checkKeys: false, ignoreUndefined: false })).toString('hex')
}

function nsOf (db: string, coll: string): string {
  return `${db}.${coll}`
}

export class StateBuilder {
  private readonly collections = new Map<string, CollectionState>()

  static from (state: StoredState): StateBuilder {
    const b = new StateBuilder()
    for (const c of state.collections) b.loadCollection(c)
    return b
  }

  loadCollection (c: StoredCollection): void {
    const cs = this.ensure(c.db, c.name, c.options)
    for (const ix of c.indexes) cs.indexes.set(ix.name, ix)
    for (const d of c.docs) cs.docs.set(idKey(d._id), d)
  }

  addDocs (db: string, coll: string, docs: readonly Document[]): void {
    const cs = this.ensure(db, coll, {})
    for (const d of docs) cs.docs.set(idKey(d._id), d)
  }

  apply (e: JournalEntry): void {
    switch (e.t) {
      case 'put': {
        this.ensure(e.db, e.coll, {}).docs.set(idKey(e.doc._id), e.doc)
        break
      }
      case 'del': {
        this.collections.get(nsOf(e.db, e.coll))?.docs.delete(idKey(e.id))
        break
      }
      case 'createCollection': {
        const existing = this.collections.get(nsOf(e.db, e.coll))
        // An implicit create (first insert) may have been journaled before explicit options.
        if (existing !== undefined) existing.options = e.options ?? {}
        else this.ensure(e.db, e.coll, e.options ?? {})
        break
      }
      case 'dropCollection': {
        this.collections.delete(nsOf(e.db, e.coll))
        break
      }
      case 'dropDatabase': {
        for (const [ns, c] of this.collections) if (c.db === e.db) this.collections.delete(ns)
        break
      }
      case 'createIndex': {
        this.ensure(e.db, e.coll, {}).indexes.set(e.index.name, e.index)
        break
      }
      case 'dropIndex': {
        this.collections.get(nsOf(e.db, e.coll))?.indexes.delete(e.name)
        break
      }
      default: {
        const unknown: never = e
        throw new Error(`devdb storage: unknown journal entry ${JSON.stringify((unknown as { t?: unknown }).t)}`)
      }
    }
  }

  toState (): StoredState {
    const collections: StoredCollection[] = []
    for (const c of this.collections.values()) {
      collections.push({
        db: c.db,
        name: c.name,
        options: c.options,
        indexes: [...c.indexes.values()],
        docs: [...c.docs.values()]
      })
    }
    return { collections }
  }

  private ensure (db: string, name: string, options: Document): CollectionState {
    const ns = nsOf(db, name)
    let c = this.collections.get(ns)
    if (c === undefined) {
      c = { db, name, options, indexes: new Map(), docs: new Map() }
      this.collections.set(ns, c)
    }
    return c
  }
}

/** Checks that a decoded BSON document has the shape of a JournalEntry before it is applied. */
export function asJournalEntry (d: Document): JournalEntry {
  const ok =
    typeof d.t === 'string' &&
    typeof d.db === 'string' &&
    (d.t === 'dropDatabase' || typeof d.coll === 'string') &&
    (d.t !== 'put' || (typeof d.doc === 'object' && d.doc !== null)) &&
    (d.t !== 'createIndex' || (typeof d.index === 'object' && d.index !== null && typeof d.index.name === 'string')) &&
    (d.t !== 'dropIndex' || typeof d.name === 'string')
  if (!ok) throw new Error(`devdb storage: malformed journal entry ${JSON.stringify(d).slice(0, 200)}`)
  return d as JournalEntry
}
