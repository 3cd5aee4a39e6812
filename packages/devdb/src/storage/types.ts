import type { Document } from 'bson'

/**
 * Contract between the in-memory engine and the durability layer.
 * The engine mutates memory synchronously, collects JournalEntry values for the command,
 * then awaits `store.commit(entries)` BEFORE it acknowledges the write to the client.
 */

/** An index as listIndexes shows it (key pattern + options such as unique/sparse/partialFilterExpression/expireAfterSeconds/weights). */
export interface StoredIndex {
  name: string
  key: Document
  [option: string]: unknown
}

export type JournalEntry =
  | { t: 'put'; db: string; coll: string; doc: Document } // insert or full replace, keyed by doc._id
  | { t: 'del'; db: string; coll: string; id: unknown } // remove by _id value
  | { t: 'createCollection'; db: string; coll: string; options: Document }
  | { t: 'dropCollection'; db: string; coll: string }
  | { t: 'dropDatabase'; db: string }
  | { t: 'createIndex'; db: string; coll: string; index: StoredIndex }
  | { t: 'dropIndex'; db: string; coll: string; name: string }

export interface StoredCollection {
  db: string
  name: string
  options: Document
  indexes: StoredIndex[] // excluding the implicit _id_ index
  docs: Document[]
}

export interface StoredState {
  collections: StoredCollection[]
}

export interface DurableStore {
  /**
   * Appends entries; resolves once they are on disk (fsync). Calls in the same tick share one
   * fsync (group commit). A failed append rejects this commit and every one queued behind it,
   * then calls `onWriteFailure` synchronously (the engine undoes them in memory there); the
   * store then accepts commits again, cutting the journal back to its last good byte first.
   */
  commit(entries: JournalEntry[]): Promise<void>
  onWriteFailure: ((err: Error) => void) | undefined
  /** false from a failed journal write until the next one succeeds */
  readonly writable: boolean
  /** the last journal write's error while not writable */
  readonly lastWriteError: Error | undefined
  /**
   * Compaction: writes a snapshot of `state` (taken synchronously, consistent with every entry
   * committed so far) and truncates the journal. Safe to call while commits continue.
   */
  snapshot(state: () => StoredState): Promise<void>
  close(): Promise<void>
}

/** Implemented in ./durable-store.ts: `openDurableStore(dbPath) → { store, state }` (snapshot + replayed journal, torn tail tolerated). */
export type OpenDurableStore = (
  dbPath: string,
  options?: { compactEveryBytes?: number }
) => Promise<{ store: DurableStore; state: StoredState }>
