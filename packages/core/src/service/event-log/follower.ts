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
    const batch = await this.#store.read(from, this.pageSize)
    if (batch.length === 0) {
      this.#last ??= from
      return false
    }
    this.#last = batch[batch.length - 1].seq
    for (const sub of this.#subs) sub.offer(batch)
    return batch.length === this.pageSize
  }

  async close (): Promise<void> {
    for (const sub of [...this.#subs]) sub.close()
    await this.pump.stop()
  }
}
