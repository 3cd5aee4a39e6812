/**
 * The durability layer: `openDurableStore(dbPath)` recovers the state and returns a store whose
 * `commit()` resolves only once the entries are fsynced in the journal (group commit), and whose
 * `snapshot()` compacts the journal into a snapshot file without blocking commits.
 *
 * Snapshot sequence (each step crash-safe; recovery = newest snapshot + all later journals):
 *   1. synchronously: capture the state, switch new commits to journal G+1
 *   2. write snapshot-(G+1).bson.tmp, fsync it
 *   3. rename to snapshot-(G+1).bson, fsync the directory
 *   4. delete journals and snapshots older than G+1
 * Before step 3 recovery uses the previous snapshot + journals G and G+1; after it, snapshot G+1
 * + journal G+1. Commits queued at step 1 go to journal G+1 and are also in the snapshot; their
 * sequence numbers (≤ the snapshot's) make recovery skip them.
 */
import { promises as fsp } from 'node:fs'
import type { JournalEntry, DurableStore, OpenDurableStore, StoredState } from './types.js'
import { encodeRecord } from './record-codec.js'
import { fsyncDir, journalPath, listDbFiles, removeIfExists, snapshotPath } from './db-files.js'
import { acquireLock, type DbLock } from './lock-file.js'
import { JournalWriter, type JournalWriterOptions, type WriterStats } from './journal-writer.js'
import { rebuildFromDisk, recover, type RecoveryReport } from './recovery.js'
import { encodeSnapshot, writeSnapshotFile } from './snapshot-file.js'

export type SnapshotStep = 'switched' | 'temp-written' | 'renamed' | 'cleaned'

export interface DurableStoreOptions extends JournalWriterOptions {
  /** Compact automatically once the active journal grows past this many bytes. */
  compactEveryBytes?: number
  /** Test hook, awaited after each step of a snapshot (to copy the directory mid-way, i.e. "crash" there). */
  onSnapshotStep?: (step: SnapshotStep, gen: number) => void | Promise<void>
}

export class JournalDurableStore implements DurableStore {
  /** Errors of automatic compactions (they never lose data: the journals stay until a snapshot is complete). */
  readonly compactionErrors: Error[] = []
  private seq: number
  private snapshotRunning: Promise<void> | undefined
  private closing = false
  /** settles after the last commit handed to the writer */
  private lastCommit: Promise<void> = Promise.resolve()
  /** sequence numbers of failed commits (newest last), so a snapshot never keeps one */
  private failedSeqs: number[] = []

  constructor (
    private readonly dir: string,
    private readonly writer: JournalWriter,
    private readonly lock: DbLock,
    lastSeq: number,
    readonly recovery: RecoveryReport,
    private readonly options: DurableStoreOptions
  ) {
    this.seq = lastSeq
    const limit = options.compactEveryBytes
    if (limit !== undefined && limit > 0) {
      writer.onFlushed = (_gen, bytes) => {
        if (bytes >= limit && this.snapshotRunning === undefined && !this.closing) {
          this.compact().catch((err: Error) => {
            this.compactionErrors.push(err)
          })
        }
      }
    }
  }

  get stats (): Readonly<WriterStats> {
    return this.writer.stats
  }

  get writable (): boolean {
    return this.writer.lastError === undefined
  }

  get lastWriteError (): Error | undefined {
    return this.writer.lastError
  }

  get onWriteFailure (): ((err: Error) => void) | undefined {
    return this.writer.onFailure
  }

  set onWriteFailure (fn: ((err: Error) => void) | undefined) {
    this.writer.onFailure = fn
  }

  get journalGeneration (): number {
    return this.writer.activeGen
  }

  commit (entries: JournalEntry[]): Promise<void> {
    if (this.closing) return Promise.reject(new Error('devdb storage: store is closed'))
    if (entries.length === 0) return Promise.resolve()
    let buf: Buffer
    try {
      // Serialized now: the bytes are the value at commit time even if the engine mutates later.
      buf = encodeRecord(this.seq + 1, entries as unknown as Array<Record<string, unknown>>)
    } catch (err) {
      return Promise.reject(err)
    }
    const seq = ++this.seq
    const p = this.writer.append(buf)
    this.lastCommit = p.then(
      () => {},
      () => {
        this.failedSeqs.push(seq)
        if (this.failedSeqs.length > 1000) this.failedSeqs.splice(0, 500)
      }
    )
    return p
  }

  async snapshot (state: () => StoredState): Promise<void> {
    while (this.snapshotRunning !== undefined) await this.snapshotRunning.catch(() => {})
    if (this.closing) throw new Error('devdb storage: store is closed')
    // Capture, switch and encode in one synchronous step: no commit can fall between them.
    const captured = state()
    const seq = this.seq
    const gen = this.writer.activeGen + 1
    this.writer.switchTo(gen)
    const records = encodeSnapshot(captured, gen, seq)
    // The state may hold commits still being written; if one of them fails (and is undone in
    // memory) this snapshot must not make it permanent.
    const included = this.lastCommit
    const failuresBefore = this.failedSeqs.length
    await this.track(
      this.finishSnapshot(
        gen,
        async () => records,
        async () => {
          await included
          if (this.failedSeqs.slice(failuresBefore).some((s) => s <= seq)) {
            throw new Error('devdb storage: snapshot abandoned: a write it contained failed')
          }
        }
      )
    )
  }

  /** Compaction from the files alone (used by compactEveryBytes; needs no state from the engine). */
  async compact (): Promise<void> {
    while (this.snapshotRunning !== undefined) await this.snapshotRunning.catch(() => {})
    if (this.closing) return
    const gen = this.writer.activeGen + 1
    this.writer.switchTo(gen)
    await this.track(
      this.finishSnapshot(gen, async () => {
        // The batch in flight at the switch still goes to journal gen-1; after it, that file is final.
        await this.writer.settled()
        const { builder, lastSeq } = await rebuildFromDisk(this.dir, gen - 1)
        return encodeSnapshot(builder.toState(), gen, lastSeq)
      })
    )
  }

  async close (): Promise<void> {
    if (this.closing) return
    this.closing = true
    await this.snapshotRunning?.catch(() => {})
    await this.writer.close()
    await this.lock.release()
  }

  private async track (p: Promise<void>): Promise<void> {
    this.snapshotRunning = p
    try {
      await p
    } finally {
      this.snapshotRunning = undefined
    }
  }

  private async finishSnapshot (
    gen: number,
    produce: () => Promise<Buffer[]>,
    beforeRename?: () => Promise<void>
  ): Promise<void> {
    const step = async (s: SnapshotStep): Promise<void> => {
      await this.options.onSnapshotStep?.(s, gen)
    }
    await step('switched')
    const records = await produce()
    const final = snapshotPath(this.dir, gen)
    const tmp = `${final}.tmp`
    await writeSnapshotFile(tmp, records)
    await step('temp-written')
    try {
      await beforeRename?.()
    } catch (err) {
      // Without its rename the snapshot never happened: recovery still reads the older snapshot and every journal.
      await removeIfExists(tmp)
      throw err
    }
    await fsp.rename(tmp, final)
    await fsyncDir(this.dir)
    await step('renamed')
    // Anything still being written to an older journal is covered by the snapshot; wait for it
    // anyway so no file is deleted under an in-flight write.
    await this.writer.settled()
    const files = await listDbFiles(this.dir)
    for (const g of files.journals) if (g < gen) await removeIfExists(journalPath(this.dir, g))
    for (const g of files.snapshots) if (g < gen) await removeIfExists(snapshotPath(this.dir, g))
    await fsyncDir(this.dir)
    await step('cleaned')
  }
}

export async function openDurableStore (
  dbPath: string,
  options: DurableStoreOptions = {}
): Promise<{ store: JournalDurableStore; state: StoredState }> {
  await fsp.mkdir(dbPath, { recursive: true })
  const lock = await acquireLock(dbPath)
  try {
    const r = await recover(dbPath)
    const writer = new JournalWriter(dbPath, r.activeGen, r.activeJournalBytes, { diskFree: options.diskFree })
    const store = new JournalDurableStore(dbPath, writer, lock, r.lastSeq, r.report, options)
    return { store, state: r.builder.toState() }
  } catch (err) {
    await lock.release()
    throw err
  }
}

// Compile-time check that the export matches the contract in ./types.ts.
const contract: OpenDurableStore = openDurableStore
void contract
