/**
 * Commit of a transaction: first-committer-wins validation, then the transaction's writes are
 * replayed on private snapshots of the current collections — so unique indexes are checked
 * against everything committed meanwhile, and a failure leaves nothing behind — and the results
 * are installed at once. The caller journals `txn.entries` as one record.
 */
import type { Document } from 'bson'
import type { Catalog } from '../engine/catalog.js'
import { Collection } from '../engine/collection.js'
import type { Transaction } from './transaction.js'
import { writeConflict } from './errors.js'
import { buildIndex } from '../engine/index-build.js'

export function applyCommit (catalog: Catalog, txn: Transaction): void {
  for (const key of txn.written) {
    if ((catalog.lastWrite.get(key) ?? 0) > txn.snapshotSeq) throw writeConflict()
  }
  // ns → the collection the commit builds (a snapshot of the live one, or a new one)
  const staged = new Map<string, { coll: Collection; live?: Collection }>()
  const target = (db: string, name: string): Collection => {
    const ns = `${db}.${name}`
    let s = staged.get(ns)
    if (s === undefined) {
      const live = catalog.get(db, name)
      if (live === undefined) throw writeConflict() // dropped since the transaction wrote to it
      s = { coll: live.snapshot(), live }
      staged.set(ns, s)
    }
    return s.coll
  }
  for (const e of txn.entries) {
    switch (e.t) {
      case 'createCollection': {
        const ns = `${e.db}.${e.coll}`
        // created by someone else since the snapshot
        if (catalog.get(e.db, e.coll) !== undefined || staged.has(ns)) throw writeConflict()
        staged.set(ns, { coll: new Collection(e.db, e.coll, e.options, catalog.stats) })
        break
      }
      case 'put': {
        const c = target(e.db, e.coll)
        const existing = c.getById(e.doc._id)
        catalog.preImageSink?.(c.ns, e.doc._id, existing)
        if (existing !== undefined) c.replace(existing, e.doc as Document)
        else c.insert(e.doc as Document)
        break
      }
      case 'createIndex':
        // only on a collection the transaction created (checked by its statement)
        target(e.db, e.coll).addIndex(buildIndex(e.index))
        break
      case 'del': {
        const c = target(e.db, e.coll)
        const existing = c.getById(e.id)
        catalog.preImageSink?.(c.ns, e.id, existing)
        if (existing !== undefined) c.remove(existing)
        break
      }
      default:
        throw new Error(`devdb: a transaction cannot commit a '${e.t}' entry`)
    }
  }
  // Everything checked: install.
  for (const [, s] of staged) {
    if (s.live !== undefined) {
      s.live.adoptContents(s.coll)
    } else {
      const created = catalog.create(s.coll.db, s.coll.name, s.coll.options, [])
      for (const ix of s.coll.userIndexes) created.addIndex(buildIndex({ ...ix.spec }))
      created.adoptContents(s.coll)
    }
  }
  if (catalog.openTransactions > 1) for (const key of txn.written) catalog.lastWrite.set(key, ++catalog.writeSeq)
}
