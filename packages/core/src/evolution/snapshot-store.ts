import type { Collection, Db } from 'mongodb'
import type { SchemaSnapshot } from '../schema/snapshot.js'

export const SNAPSHOTS_COLLECTION = 'svc_schema_snapshots'

export interface StoredSnapshot extends SchemaSnapshot {
  /** When a process last started serving these schemas. */
  servedAt: Date
}

interface SnapshotDoc extends StoredSnapshot {
  _id: 'served'
}

/**
 * The schemas this database was last served with: one document, written by a start-up whose
 * schema check passed (see startup-check.ts). `svc schema plan` compares the files with it.
 */
export class SnapshotStore {
  readonly #coll: Collection<SnapshotDoc>

  constructor (db: Db) {
    this.#coll = db.collection<SnapshotDoc>(SNAPSHOTS_COLLECTION)
  }

  async read (): Promise<StoredSnapshot | null> {
    const doc = await this.#coll.findOne({ _id: 'served' })
    if (doc === null) return null
    const { _id, ...snapshot } = doc
    return snapshot
  }

  async write (snapshot: SchemaSnapshot, servedAt = new Date()): Promise<void> {
    await this.#coll.replaceOne(
      { _id: 'served' },
      { format: snapshot.format, hash: snapshot.hash, resources: snapshot.resources, servedAt },
      { upsert: true }
    )
  }
}
