/**
 * Runs every write as "apply in memory, journal, then acknowledge" with an undo: the changes a
 * write makes are recorded (engine/undo.ts) until its journal record is on disk, and a failed
 * journal write undoes it — and every later write still waiting for the disk, whose records the
 * store rejected with it — before anything else runs. So a client never keeps seeing, and a
 * snapshot never persists, a write that was answered with an error; and the next write tries the
 * disk again.
 */
import type { Catalog } from './catalog.js'
import type { DurableStore, JournalEntry } from '../storage/types.js'
import { UndoSegment } from './undo.js'

export class Committer {
  /** undo segments of writes whose journal record is not on disk yet, oldest first */
  private inflight: UndoSegment[] = []

  constructor (private readonly catalog: Catalog, private readonly store: DurableStore | undefined) {
    if (store !== undefined) store.onWriteFailure = () => { this.undoInflight() }
  }

  /**
   * Runs `apply` synchronously (it changes memory and pushes journal entries), then waits until
   * the entries are on disk. When the journal write fails the changes are undone and the error
   * is thrown.
   */
  async run<T>(apply: (journal: JournalEntry[]) => T): Promise<T> {
    const journal: JournalEntry[] = []
    if (this.store === undefined) return apply(journal)
    const segment = new UndoSegment()
    this.catalog.recordUndo(segment)
    let result: T
    try {
      result = apply(journal)
    } finally {
      this.catalog.recordUndo(undefined)
    }
    if (journal.length === 0) return result
    this.inflight.push(segment)
    const committed = this.store.commit(journal)
    // Registered first, so it runs before any other reaction to this commit.
    committed.then(() => { this.settled(segment) }, () => {})
    await committed
    return result
  }

  private settled (segment: UndoSegment): void {
    const i = this.inflight.indexOf(segment)
    if (i >= 0) this.inflight.splice(i, 1)
  }

  /** Called synchronously by the store after it rejected every pending commit. */
  private undoInflight (): void {
    const undone = this.inflight.splice(0)
    for (let i = undone.length - 1; i >= 0; i--) undone[i].restore(this.catalog.dbs)
  }
}
