import type { ChangeStream, Collection, Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'

/** Inserts (new events to stamp) and updates (stamps to read); only the kind travels, not the document. */
const PIPELINE: Document[] = [
  { $match: { operationType: { $in: ['insert', 'update'] } } },
  { $project: { operationType: 1 } }
]

/**
 * Whether the deployment serves change streams on `coll` (replica sets and sharded clusters do,
 * a standalone mongod does not): opens the stream the log would use and asks for its first batch.
 */
export async function changeStreamsSupported (coll: Collection<any>): Promise<boolean> {
  const stream = coll.watch(PIPELINE, { maxAwaitTimeMS: 1 })
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
  /** An event was stamped (followers have something to read). */
  stamped: () => void
  /** The stream is open (again) and has answered: catch up on what happened meanwhile, then rely on it. */
  up: () => void
  /** The stream failed: poll until it is back. */
  down: () => void
}

/**
 * One change stream per process on `svc_events`, used as a wake-up signal only: the sequencer
 * and the follower still read by index, so ordering and gap-freedom never depend on the stream.
 * The driver resumes it across transient errors; any other error closes it, the loops fall
 * back to polling, and it is reopened after `retryMs`.
 */
export class EventWatch {
  readonly #coll: Collection<any>
  readonly #on: WatchHandlers
  readonly #log: FastifyBaseLogger
  readonly #retryMs: number
  #stream: ChangeStream | null = null
  #timer: NodeJS.Timeout | null = null
  #closed = false

  constructor (coll: Collection<any>, on: WatchHandlers, opts: { log: FastifyBaseLogger; retryMs: number }) {
    this.#coll = coll
    this.#on = on
    this.#log = opts.log
    this.#retryMs = opts.retryMs
  }

  start (): void {
    if (this.#closed) return
    const stream = this.#coll.watch(PIPELINE)
    stream.on('change', (change: { operationType?: string }) => {
      if (change.operationType === 'insert') this.#on.inserted()
      else this.#on.stamped()
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
