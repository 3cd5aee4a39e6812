import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { LoggedEvent } from './event-doc.js'
import type { EventStore } from './event-store.js'
import type { Follower } from './follower.js'
import { Lease } from './lease.js'
import { Pump } from './pump.js'
import type { Subscription } from './subscription.js'

/** Handles one batch of a durable consumer; must be idempotent (a batch may be handed again after a crash or a takeover). */
export type DurableHandler = (events: LoggedEvent[]) => Promise<void>

export interface DurableConsumerDeps {
  db: Db
  store: EventStore
  follower: Follower
  holder: string
  leaseMs: number
  log: FastifyBaseLogger
}

class LeaseLost extends Error {}

/**
 * A consumer that must see every event once the log has it (webhooks' fan-out): one process at
 * a time holds its lease and follows the log from its checkpoint (`svc_event_consumers`), which
 * moves forward only after a batch was handled. A crash or a lost lease replays at most the
 * batches after the checkpoint; the retention sweep never removes an event past it.
 */
export class DurableConsumer {
  readonly name: string
  readonly pump: Pump
  readonly #d: DurableConsumerDeps
  readonly #handler: DurableHandler | null
  readonly #lease: Lease
  #sub: Subscription | null = null

  constructor (name: string, handler: DurableHandler | null, deps: DurableConsumerDeps) {
    this.name = name
    this.#d = deps
    this.#handler = handler
    this.#lease = new Lease(deps.db, `svc_events.consumer:${name}`, deps.holder, deps.leaseMs)
    this.pump = new Pump(`event consumer ${name}`, async () => await this.#step(), deps.leaseMs / 3, deps.log)
  }

  /** Whether this process runs it (a declared-only consumer just keeps its checkpoint). */
  get runs (): boolean {
    return this.#handler !== null
  }

  start (): void {
    if (this.runs) this.pump.start()
  }

  /**
   * Creates the checkpoint at the log's head the first time (events stamped before the consumer
   * existed are not its business; every later one is).
   */
  async register (): Promise<void> {
    const now = new Date()
    const head = await this.#d.store.lastSeq()
    await this.#d.store.consumers.updateOne(
      { _id: this.name },
      { $setOnInsert: { seq: head, createdAt: now, updatedAt: now } },
      { upsert: true }
    )
  }

  /** Keeps the lease and, while held, one subscription from the checkpoint. */
  async #step (): Promise<boolean> {
    const held = await this.#lease.acquire()
    if (!held) {
      this.#drop()
      return false
    }
    if (this.#sub === null || this.#sub.closed) {
      const doc = await this.#d.store.consumers.findOne({ _id: this.name })
      const from = doc?.seq ?? (await this.#d.store.lastSeq())
      this.#sub = await this.#d.follower.follow(from, async (events, position) => await this.#batch(events, position), {
        // Never dropped for being slow: a lagging consumer reads the log instead of queueing.
        maxQueued: 2 * this.#d.follower.pageSize,
        onError: (err) => {
          if (!(err instanceof LeaseLost)) {
            this.#d.log.error({ err, consumer: this.name }, 'event consumer batch failed; replayed from its checkpoint')
          }
          this.pump.nudge()
        }
      })
      this.#d.log.debug({ consumer: this.name, from }, 'event consumer following the log')
    }
    return false
  }

  async #batch (events: LoggedEvent[], position: number): Promise<void> {
    if (!this.#lease.held()) throw new LeaseLost()
    await this.#handler?.(events)
    await this.#d.store.consumers.updateOne(
      { _id: this.name },
      { $max: { seq: position }, $set: { updatedAt: new Date() } }
    )
  }

  #drop (): void {
    this.#sub?.close()
    this.#sub = null
  }

  async close (): Promise<void> {
    await this.pump.stop()
    const sub = this.#sub
    this.#drop()
    if (sub === null) return
    // A handler stuck on a dead peer must not hold the shutdown longer than a lease.
    await Promise.race([sub.idle(), new Promise((resolve) => setTimeout(resolve, this.#d.leaseMs).unref())])
    await this.#lease.release().catch(() => {})
  }
}
