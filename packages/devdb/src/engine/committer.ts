/**
 * Runs every write as "apply in memory, journal, then acknowledge" with an undo: the changes a
 * write makes are recorded (engine/undo.ts) until its journal record is on disk, and a failed
 * journal write undoes it — and every later write still waiting for the disk, whose records the
 * store rejected with it — before anything else runs. So a client never keeps seeing, and a
 * snapshot never persists, a write that was answered with an error; and the next write tries the
 * disk again.
 */
import type { Document } from 'bson'
import type { Catalog } from './catalog.js'
import type { DurableStore, JournalEntry } from '../storage/types.js'
import { UndoSegment } from './undo.js'

/** Sees every write (change streams: change-streams/capture.ts). */
export interface WriteObserver {
  begin: (body?: Document) => void
  /** after the write ran in memory; returns a mark `durable` gets once its journal record is on disk */
  end: (journal: JournalEntry[], body: Document | undefined, pending: boolean) => number
  durable: (mark: number) => void
  /** every write not yet on disk was undone */
  undone: () => void
}

export class Committer {
  /** undo segments of writes whose journal record is not on disk yet, oldest first */
  private inflight: UndoSegment[] = []
  observer: WriteObserver | undefined

  constructor (
    private readonly catalog: Catalog,
    private readonly store: DurableStore | undefined
  ) {
    if (store !== undefined) {
      store.onWriteFailure = () => {
        this.undoInflight()
      }
    }
  }

  /**
   * Runs `apply` synchronously (it changes memory and pushes journal entries), then waits until
   * the entries are on disk. When the journal write fails the changes are undone and the error
   * is thrown.
   */
  async run<T>(apply: (journal: JournalEntry[]) => T, body?: Document): Promise<T> {
    const journal: JournalEntry[] = []
    const observer = this.observer
    observer?.begin(body)
    if (this.store === undefined) {
      try {
        return apply(journal)
      } finally {
        observer?.end(journal, body, false)
      }
    }
    const segment = new UndoSegment()
    this.catalog.recordUndo(segment)
    let result: T
    let mark = 0
    try {
      result = apply(journal)
    } finally {
      this.catalog.recordUndo(undefined)
      if (observer !== undefined) mark = observer.end(journal, body, true)
    }
    if (journal.length === 0) return result
    this.inflight.push(segment)
    const committed = this.store.commit(journal)
    // Registered first, so it runs before any other reaction to this commit.
    committed.then(
      () => {
        this.settled(segment)
        observer?.durable(mark)
      },
      () => {}
    )
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
    this.observer?.undone()
  }
}
