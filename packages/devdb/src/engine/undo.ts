/**
 * Undo of in-memory changes whose journal write has not succeeded yet. While a segment records,
 * the first change to a collection saves its documents and index trees (O(1) copy-on-write
 * clones) and the first create/drop saves the namespace maps; `restore()` puts every saved piece
 * back in place — the same Collection and IndexDef objects, so cursors and plans stay valid.
 */
import type { Collection } from './collection.js'
import type { IndexDef } from './index-def.js'

interface SavedCollection {
  records: Collection['records']
  nextRid: number
  indexes: IndexDef[]
  trees: Array<{ ix: IndexDef; tree: IndexDef['tree']; multikey: boolean[] }>
}

export type Namespaces = Map<string, Map<string, Collection>>

export class UndoSegment {
  private readonly collections = new Map<Collection, SavedCollection>()
  private namespaces: Namespaces | undefined

  /** Something will change in `c`: keep its state as it was before this segment. */
  saveCollection (c: Collection): void {
    if (this.collections.has(c)) return
    this.collections.set(c, {
      records: c.records.clone(),
      nextRid: c.nextRecordId,
      indexes: [...c.indexes],
      trees: c.indexes.map((ix) => ({ ix, tree: ix.tree.clone(), multikey: [...ix.multikey] }))
    })
  }

  /** A collection will be created or dropped: keep the namespace maps as they were. */
  saveNamespaces (dbs: Namespaces): void {
    this.namespaces ??= new Map([...dbs].map(([db, colls]) => [db, new Map(colls)]))
  }

  get empty (): boolean {
    return this.collections.size === 0 && this.namespaces === undefined
  }

  /** Puts everything saved back into `dbs` and the saved collections. */
  restore (dbs: Namespaces): void {
    for (const [c, saved] of this.collections) {
      c.records = saved.records
      c.nextRecordId = saved.nextRid
      c.indexes = saved.indexes
      for (const t of saved.trees) {
        t.ix.tree = t.tree
        t.ix.multikey = t.multikey
      }
      c.planCache.clear()
    }
    if (this.namespaces !== undefined) {
      dbs.clear()
      for (const [db, colls] of this.namespaces) dbs.set(db, colls)
    }
  }
}
