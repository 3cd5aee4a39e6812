/**
 * Group commit. Records are queued in commit order; one flush loop writes everything queued
 * so far with a single write + fdatasync, then resolves exactly those commits. Commits that
 * arrive while a flush is in flight wait for the next flush, so N concurrent commits cost about
 * two fsyncs instead of N, and a promise never resolves before the fsync that covers it.
 *
 * Batches are strictly sequential, also across a journal switch: the first byte of journal
 * G+1 is written only after the last batch of journal G was synced. Recovery relies on that:
 * only the newest journal can have a torn tail.
 */
import { promises as fsp, type promises } from 'node:fs'
import { fsyncDir, journalPath } from './db-files.js'

interface Pending { buf: Buffer, resolve: () => void, reject: (err: Error) => void }

export interface WriterStats {
  /** fdatasync calls on journal files (one per batch). */
  fsyncs: number
  batches: number
  records: number
  bytes: number
}

export class JournalWriter {
  readonly stats: WriterStats = { fsyncs: 0, batches: 0, records: 0, bytes: 0 }
  /** Called after each synced batch with the size of the journal it went to. */
  onFlushed: ((gen: number, journalBytes: number) => void) | undefined
  private queue: Pending[] = []
  private running = false
  private inFlight: Promise<void> = Promise.resolve()
  private idleWaiters: Array<() => void> = []
  private fh: promises.FileHandle | undefined
  private fhGen = -1
  private failure: Error | undefined

  constructor (private readonly dir: string, private gen: number, private journalBytes: number) {}

  get activeGen (): number { return this.gen }
  get activeBytes (): number { return this.journalBytes }

  append (buf: Buffer): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, resolve, reject })
      if (!this.running) {
        this.running = true
        // setImmediate rather than a microtask: every commit made during this turn of the event
        // loop (e.g. requests from many sockets read in one poll phase) joins the first batch.
        setImmediate(() => { void this.run() })
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
    await new Promise<void>(resolve => this.idleWaiters.push(resolve))
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
      const fh = await this.handleFor(gen)
      const data = batch.length === 1 ? batch[0].buf : Buffer.concat(batch.map(p => p.buf))
      let written = 0
      while (written < data.length) {
        const { bytesWritten } = await fh.write(data, written, data.length - written)
        written += bytesWritten
      }
      await fh.datasync()
      this.stats.fsyncs++
      this.stats.batches++
      this.stats.records += batch.length
      this.stats.bytes += data.length
      if (gen === this.gen) this.journalBytes += data.length
      for (const p of batch) p.resolve()
      this.onFlushed?.(gen, gen === this.gen ? this.journalBytes : 0)
    } catch (err) {
      // After a failed write the journal's tail is unknown; accepting more commits could put
      // acknowledged records behind garbage, so the store stops accepting writes.
      this.failure ??= new Error(`devdb storage: journal write failed, no further writes accepted: ${(err as Error).message}`)
      for (const p of batch) p.reject(this.failure)
      for (const p of this.queue.splice(0)) p.reject(this.failure)
    }
  }

  private async handleFor (gen: number): Promise<promises.FileHandle> {
    if (this.fh !== undefined && this.fhGen === gen) return this.fh
    await this.fh?.close()
    this.fh = undefined
    this.fh = await fsp.open(journalPath(this.dir, gen), 'a')
    this.fhGen = gen
    // Make the new file's name durable before any commit in it is acknowledged.
    await fsyncDir(this.dir)
    return this.fh
  }
}
