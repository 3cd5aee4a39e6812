import type { LoggedEvent } from './event-doc.js'

/** Handed each batch in `seq` order; `position` is the last `seq` the batch covers. */
export type BatchHandler = (events: LoggedEvent[], position: number) => void | Promise<void>

export interface FollowOptions {
  /** Only these events reach the handler (the position still moves past the others). */
  filter?: (event: LoggedEvent) => boolean
  /**
   * Events queued for a handler still busy with an earlier batch; past it the queue is dropped
   * and the subscription reads the log from its position instead (memory stays bounded, nothing
   * is lost). Default 10000.
   */
  maxQueued?: number
  /** A handler threw (or a read failed): the subscription is closed and gets the error here. */
  onError?: (err: unknown) => void
}

/** A live subscription to the log (see EventLog.follow). */
export interface EventSubscription {
  /** The last `seq` handed to the handler (or skipped by the filter) and finished. */
  readonly position: number
  readonly closed: boolean
  /** Stops it: no batch starts after this (one in flight finishes). */
  close: () => void
  /** Resolves when no batch is running. */
  idle: () => Promise<void>
}

/** What a subscription needs from the follower it hangs on. */
export interface FollowerSource {
  read: (afterSeq: number, limit: number) => Promise<LoggedEvent[]>
  /** The highest `seq` the follower has fanned out. */
  readonly last: number
  readonly pageSize: number
  drop: (sub: Subscription) => void
}

/**
 * One subscriber's state. It starts by reading the log from its position (replay) and switches
 * to the follower's in-memory batches once it has caught up with them — decided synchronously
 * right after a read, so no batch falls between the two. Batches run one at a time in order.
 */
export class Subscription implements EventSubscription {
  readonly #src: FollowerSource
  readonly #handler: BatchHandler
  readonly #opts: FollowOptions
  readonly #maxQueued: number
  #queue: Array<{ events: LoggedEvent[]; upTo: number }> = []
  #queued = 0
  /** Last `seq` queued (live) or read (catching up). */
  #pos: number
  /** Last `seq` handed to the handler (its batch may still run). */
  #handed: number
  #done: number
  #live = false
  #running = false
  #closed = false
  #work$: Promise<void> = Promise.resolve()

  constructor (src: FollowerSource, after: number, handler: BatchHandler, opts: FollowOptions) {
    this.#src = src
    this.#handler = handler
    this.#opts = opts
    this.#maxQueued = opts.maxQueued ?? 10_000
    this.#pos = after
    this.#handed = after
    this.#done = after
  }

  get position (): number {
    return this.#done
  }

  get closed (): boolean {
    return this.#closed
  }

  close (): void {
    if (this.#closed) return
    this.#closed = true
    this.#queue = []
    this.#src.drop(this)
  }

  /** A batch the follower just read (every subscriber gets the same array). */
  offer (batch: LoggedEvent[]): void {
    if (this.#closed || !this.#live || batch.length === 0) return
    const upTo = batch[batch.length - 1].seq
    if (upTo <= this.#pos) return
    const fresh = batch[0].seq > this.#pos ? batch : batch.filter((e) => e.seq > this.#pos)
    const events = this.#opts.filter === undefined ? fresh : fresh.filter(this.#opts.filter)
    this.#pos = upTo
    this.#queue.push({ events, upTo })
    this.#queued += events.length
    if (this.#queued > this.#maxQueued) {
      // Too far behind: forget the queue, read the log after what the handler has been given.
      this.#queue = []
      this.#queued = 0
      this.#pos = this.#handed
      this.#live = false
    }
    this.run()
  }

  /** Works the queue (or catches up) until there is nothing left; one runner at a time. */
  run (): void {
    if (this.#running || this.#closed) return
    this.#running = true
    this.#work$ = this.#work()
      .catch((err: unknown) => {
        this.close()
        this.#opts.onError?.(err)
      })
      .finally(() => {
        this.#running = false
      })
  }

  /** Resolves when no batch of this subscription is running (after `close()`: none will start). */
  async idle (): Promise<void> {
    await this.#work$
  }

  async #work (): Promise<void> {
    while (!this.#closed) {
      if (!this.#live) {
        await this.#catchUp()
        continue
      }
      const next = this.#queue.shift()
      if (next === undefined) return
      this.#queued -= next.events.length
      this.#handed = next.upTo
      if (next.events.length > 0) await this.#handler(next.events, next.upTo)
      this.#done = next.upTo
    }
  }

  async #catchUp (): Promise<void> {
    // Everything up to the follower's position was stamped and visible before this read began.
    const seen = this.#src.last
    const page = await this.#src.read(this.#pos, this.#src.pageSize)
    if (this.#closed) return
    if (page.length > 0) {
      const upTo = page[page.length - 1].seq
      const events = this.#opts.filter === undefined ? page : page.filter(this.#opts.filter)
      this.#pos = upTo
      this.#handed = upTo
      if (events.length > 0) await this.#handler(events, upTo)
      this.#done = upTo
      if (this.#closed) return
    }
    // A short page below that position: the rest was removed by the retention sweep; go on from there.
    if (page.length < this.#src.pageSize && this.#pos < seen) this.#pos = this.#handed = this.#done = seen
    // Synchronously with the check: every later batch of the follower holds only what is newer.
    if (this.#pos >= this.#src.last) this.#live = true
  }
}
