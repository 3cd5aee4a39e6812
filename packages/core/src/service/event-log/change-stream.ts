import type { ChangeStream, Db, Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'

/** What the log's stream watches: new events, and the sequencer's counter (where its lease document keeps it). */
export interface WatchTargets {
  events: string
  leases: string
  sequencerLease: string
  /** This process's events are left out: its own writes wake its loops directly. */
  origin: string
}

/**
 * Other processes' inserts into the log (new events to stamp) and moves of the sequencer's
 * counter (a stamped batch, whatever its size): only the kind and the new counter travel, never a
 * document. One signal per batch rather than one per stamped event, none for this process's own
 * writes; a server pushes the `$match` into its scan.
 */
export function watchPipeline (t: WatchTargets): Document[] {
  return [
    {
      $match: {
        $or: [
          { operationType: 'insert', 'ns.coll': t.events, 'fullDocument.origin': { $ne: t.origin } },
          { operationType: 'update', 'ns.coll': t.leases, 'documentKey._id': t.sequencerLease }
        ]
      }
    },
    { $project: { operationType: 1, 'updateDescription.updatedFields.seq': 1 } }
  ]
}

/**
 * Whether the deployment serves change streams on `db` (replica sets and sharded clusters do,
 * a standalone mongod does not, nor a user without the privilege): opens the stream the log
 * would use and asks for its first batch.
 */
export async function changeStreamsSupported (db: Db, targets: WatchTargets): Promise<boolean> {
  const stream = db.watch(watchPipeline(targets), { maxAwaitTimeMS: 1 })
  try {
    await stream.tryNext()
    return true
  } catch {
    return false
  } finally {
    await stream.close().catch(() => {})
  }
}

export interface WatchHandlers {
  /** An event was inserted (the sequencer has work). */
  inserted: () => void
  /** The sequencer's counter moved to `head`: events up to it are stamped (followers behind it have something to read). */
  stamped: (head: number) => void
  /** The stream is open (again) and has answered: catch up on what happened meanwhile, then rely on it. */
  up: () => void
  /** The stream failed: poll until it is back. */
  down: () => void
}

/**
 * One change stream per process on the database (`watchPipeline`), used as a wake-up signal only:
 * the sequencer and the follower still read by index, so ordering and gap-freedom never depend on it.
 * The driver resumes it across transient errors; any other error closes it, the loops fall
 * back to polling, and it is reopened after `retryMs`.
 */
export class EventWatch {
  readonly #db: Db
  readonly #pipeline: Document[]
  readonly #on: WatchHandlers
  readonly #log: FastifyBaseLogger
  readonly #retryMs: number
  #stream: ChangeStream | null = null
  #timer: NodeJS.Timeout | null = null
  #closed = false

  constructor (db: Db, targets: WatchTargets, on: WatchHandlers, opts: { log: FastifyBaseLogger; retryMs: number }) {
    this.#db = db
    this.#pipeline = watchPipeline(targets)
    this.#on = on
    this.#log = opts.log
    this.#retryMs = opts.retryMs
  }

  start (): void {
    if (this.#closed) return
    const stream = this.#db.watch(this.#pipeline)
    stream.on('change', (change: Document) => {
      if (change.operationType === 'insert') this.#on.inserted()
      else {
        // The lease's other updates (renewals, the sweep's mark) carry no counter.
        const head: unknown = change.updateDescription?.updatedFields?.seq
        if (typeof head === 'number') this.#on.stamped(head)
      }
    })
    stream.once('error', (err) => {
      if (this.#stream !== stream) return
      this.#stream = null
      this.#log.warn({ err }, 'event log change stream failed; polling until it is reopened')
      stream.close().catch(() => {})
      this.#on.down()
      if (this.#closed) return
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.start()
      }, this.#retryMs)
      this.#timer.unref()
    })
    // The driver opens the stream asynchronously: only once its first answer is in (the first
    // resume token) may the loops rely on it, so their catch-up comes after that, not before —
    // a write between the two would otherwise wait for the relaxed poll.
    let live = false
    stream.on('resumeTokenChanged', () => {
      if (live || this.#stream !== stream) return
      live = true
      this.#on.up()
    })
    this.#stream = stream
  }

  async close (): Promise<void> {
    this.#closed = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    const stream = this.#stream
    this.#stream = null
    await stream?.close().catch(() => {})
  }
}
