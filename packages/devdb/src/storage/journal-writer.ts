/**
 * Group commit. Records are queued in commit order; one flush loop writes everything queued
 * so far with a single write + fdatasync, then resolves exactly those commits. Commits that
 * arrive while a flush is in flight wait for the next flush, so N concurrent commits cost about
 * two fsyncs instead of N, and a promise never resolves before the fsync that covers it.
 *
 * Batches are strictly sequential, also across a journal switch: the first byte of journal
 * G+1 is written only after the last batch of journal G was synced. Recovery relies on that:
 * only the newest journal can have a torn tail.
 *
 * A failed write or fsync (disk full…) rejects its batch and every queued commit, then calls
 * `onFailure` synchronously so the engine can undo those commits in memory before anything else
 * runs. With a handler the writer then accepts commits again: the next batch first truncates the
 * failed journal back to its last synced byte, so a half-written record never sits in front of
 * later ones. Without one it refuses every later commit.
 */
import { promises as fsp, type promises } from 'node:fs'
import { fsyncDir, journalPath } from './db-files.js'

interface Pending {
  buf: Buffer
  resolve: () => void
  reject: (err: Error) => void
}

export interface WriterStats {
  /** fdatasync calls on journal files (one per batch). */
  fsyncs: number
  batches: number
  records: number
  bytes: number
  /** failed batches (write, fsync or repair errors) */
  failures: number
}

export interface JournalWriterOptions {
  /** Test hook simulating a filling disk: bytes that may still be written (a larger batch is written up to it, then fails with ENOSPC). */
  diskFree?: () => number
}

export class JournalWriter {
  readonly stats: WriterStats = { fsyncs: 0, batches: 0, records: 0, bytes: 0, failures: 0 }
  /** Called after each synced batch with the size of the journal it went to. */
  onFlushed: ((gen: number, journalBytes: number) => void) | undefined
  /** Called synchronously after a failed batch was rejected; when set, later commits are accepted again. */
  onFailure: ((err: Error) => void) | undefined
  /** the error of the last batch when it failed; cleared by the next synced batch */
  lastError: Error | undefined
  private queue: Pending[] = []
  private running = false
  private inFlight: Promise<void> = Promise.resolve()
  private idleWaiters: Array<() => void> = []
  private fh: promises.FileHandle | undefined
  private fhGen = -1
  private failure: Error | undefined
  /** size of the open journal up to its last synced batch */
  private fhSynced = 0
  /** a journal to cut back to its last synced byte before the next write */
  private repair: { gen: number; size: number } | undefined

  constructor (
    private readonly dir: string,
    private gen: number,
    private journalBytes: number,
    private readonly options: JournalWriterOptions = {}
  ) {}

  get activeGen (): number {
    return this.gen
  }

  get activeBytes (): number {
    return this.journalBytes
  }

  append (buf: Buffer): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, resolve, reject })
      if (!this.running) {
        this.running = true
        // setImmediate rather than a microtask: every commit made during this turn of the event
        // loop (e.g. requests from many sockets read in one poll phase) joins the first batch.
        setImmediate(() => {
          void this.run()
        })
      }
    })
  }

  /** Synchronously directs every batch not yet started (including queued commits) to journal `gen`. */
  switchTo (gen: number): void {
    this.gen = gen
    this.journalBytes = 0
  }

  /** Resolves when the batch being written at call time (if any) has been synced. */
  async settled (): Promise<void> {
    await this.inFlight
  }

  /** Resolves when the queue is empty and nothing is being written. */
  async idle (): Promise<void> {
    if (!this.running) return
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
  }

  async close (): Promise<void> {
    await this.idle()
    await this.fh?.close()
    this.fh = undefined
  }

  private async run (): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue
      this.queue = []
      const gen = this.gen
      const flush = this.flush(gen, batch)
      this.inFlight = flush.catch(() => {})
      await this.inFlight
    }
    this.running = false
    for (const w of this.idleWaiters.splice(0)) w()
  }

  private async flush (gen: number, batch: Pending[]): Promise<void> {
    try {
      if (this.failure !== undefined) throw this.failure
      if (this.repair !== undefined) await this.cutBack(this.repair)
      const fh = await this.handleFor(gen)
      const data = batch.length === 1 ? batch[0].buf : Buffer.concat(batch.map((p) => p.buf))
      const free = this.options.diskFree?.() ?? Infinity
      let written = 0
      while (written < data.length) {
        const room = Math.min(data.length - written, Math.max(0, free - written))
        if (room === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
        const { bytesWritten } = await fh.write(data, written, room)
        written += bytesWritten
      }
      await fh.datasync()
      this.fhSynced += data.length
      this.lastError = undefined
      this.stats.fsyncs++
      this.stats.batches++
      this.stats.records += batch.length
      this.stats.bytes += data.length
      if (gen === this.gen) this.journalBytes += data.length
      for (const p of batch) p.resolve()
      this.onFlushed?.(gen, gen === this.gen ? this.journalBytes : 0)
    } catch (err) {
      // After a failed write the journal's tail is unknown: it is cut back before anything else
      // is written to it.
      if (this.fh !== undefined && this.repair === undefined) this.repair = { gen: this.fhGen, size: this.fhSynced }
      this.stats.failures++
      const failure = this.failure ?? new Error(`devdb storage: journal write failed: ${(err as Error).message}`)
      this.lastError = failure
      this.failure = failure
      for (const p of batch) p.reject(failure)
      for (const p of this.queue.splice(0)) p.reject(failure)
      if (this.onFailure !== undefined) {
        this.onFailure(failure)
        this.failure = undefined
      }
    }
  }

  private async cutBack (repair: { gen: number; size: number }): Promise<void> {
    if (this.fh !== undefined && this.fhGen === repair.gen) {
      await this.fh.truncate(repair.size)
      await this.fh.datasync()
    } else {
      const fh = await fsp.open(journalPath(this.dir, repair.gen), 'r+')
      try {
        await fh.truncate(repair.size)
        await fh.datasync()
      } finally {
        await fh.close()
      }
    }
    this.repair = undefined
  }

  private async handleFor (gen: number): Promise<promises.FileHandle> {
    if (this.fh !== undefined && this.fhGen === gen) return this.fh
    await this.fh?.close()
    this.fh = undefined
    this.fh = await fsp.open(journalPath(this.dir, gen), 'a')
    this.fhGen = gen
    this.fhSynced = (await this.fh.stat()).size
    // Make the new file's name durable before any commit in it is acknowledged.
    await fsyncDir(this.dir)
    return this.fh
  }
}
