import type { FastifyBaseLogger } from 'fastify'
import type { LoggedEvent } from './event-doc.js'
import type { EventStore } from './event-store.js'
import { Pump } from './pump.js'
import { BURST_GAP_MS } from './sequencer.js'
import { Subscription, type BatchHandler, type FollowerSource, type FollowOptions } from './subscription.js'

/**
 * This process's one reader of the log's head: a single indexed query `seq > last` per wake-up
 * (a stamp seen on the change stream, a local stamp, or the poll interval), its batch handed in
 * memory to every local subscription. Idle (no query at all) while nobody follows.
 */
export class Follower implements FollowerSource {
  readonly #store: EventStore
  readonly #subs = new Set<Subscription>()
  readonly pump: Pump
  readonly pageSize: number
  #last: number | null = null
  #reading = false
  /** The highest head announced while a read was out (0: none). */
  #heardDuringRead = 0

  constructor (store: EventStore, opts: { pageSize: number; pollMs: number; log: FastifyBaseLogger }) {
    this.#store = store
    this.pageSize = opts.pageSize
    this.pump = new Pump('event log follower', async () => await this.#step(), opts.pollMs, opts.log, BURST_GAP_MS)
  }

  get last (): number {
    return this.#last ?? 0
  }

  async read (afterSeq: number, limit: number): Promise<LoggedEvent[]> {
    return await this.#store.read(afterSeq, limit)
  }

  /**
   * Subscribes from `after` (null: from the current head). Resolves once the subscription is
   * live: every event stamped from then on reaches it, and those after `after` already in the
   * log are read first.
   */
  async follow (after: number | null, handler: BatchHandler, opts: FollowOptions = {}): Promise<Subscription> {
    if (this.#last === null) {
      const head = await this.#store.lastSeq()
      this.#last ??= head
    }
    const sub = new Subscription(this, after ?? this.#last, handler, opts)
    this.#subs.add(sub)
    sub.run()
    this.pump.nudge()
    return sub
  }

  /**
   * Events up to `head` are stamped (this process's sequencer, or another's counter seen on the
   * change stream): a read only when this follower is behind it — a batch it stamped itself and
   * already read is announced again by the stream, and costs nothing then.
   */
  announce (head: number): void {
    if (this.#last !== null && head <= this.#last) return
    // During a read, whether it reached `head` is known only once it returns.
    if (this.#reading) this.#heardDuringRead = Math.max(this.#heardDuringRead, head)
    else this.pump.nudge()
  }

  drop (sub: Subscription): void {
    this.#subs.delete(sub)
  }

  async #step (): Promise<boolean> {
    if (this.#subs.size === 0) {
      // Nobody listens: forget the position, the next subscriber reads the head afresh.
      this.#last = null
      return false
    }
    const from = this.#last ?? (await this.#store.lastSeq())
    this.#heardDuringRead = 0
    this.#reading = true
    let batch: LoggedEvent[]
    try {
      batch = await this.#store.read(from, this.pageSize)
    } finally {
      this.#reading = false
    }
    this.#last = batch.length === 0 ? from : batch[batch.length - 1].seq
    // A stamp committed after the read began: read again (once per announcement, so never a loop).
    if (this.#heardDuringRead > this.#last) this.pump.nudge()
    if (batch.length === 0) return false
    for (const sub of this.#subs) sub.offer(batch)
    return batch.length === this.pageSize
  }

  async close (): Promise<void> {
    for (const sub of [...this.#subs]) sub.close()
    await this.pump.stop()
  }
}
