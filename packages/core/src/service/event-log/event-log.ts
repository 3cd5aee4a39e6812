import { randomUUID } from 'node:crypto'
import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { ResourceService } from '../resource-service.js'
import { changeStreamsSupported, EventWatch } from './change-stream.js'
import { EventCursors } from './cursor.js'
import { DurableConsumer, type DurableHandler } from './durable-consumer.js'
import { EVENTS_COLLECTION, eventDoc, type LoggedEvent } from './event-doc.js'
import { EventStore } from './event-store.js'
import { Follower } from './follower.js'
import { LEASES_COLLECTION } from './lease.js'
import type { EventLogSettings } from './options.js'
import { SEQUENCER_LEASE, Sequencer, type SequencerDoc } from './sequencer.js'
import type { BatchHandler, EventSubscription, FollowOptions } from './subscription.js'

/** Retention when no consumer asks for more: one hour. */
export const DEFAULT_RETENTION_MS = 60 * 60 * 1000
const PAGE = 500

export interface EventLogDeps {
  db: Db
  services: () => ResourceService[]
  /** Whether core commits in transactions (then the sequencer fences with them too). */
  transactions: boolean
  log: FastifyBaseLogger
  /** The cursors' HMAC key (derived from the JWT secret once auth is installed). */
  cursorKey: () => Buffer
  settings: EventLogSettings
}

/**
 * `app.svc.eventLog`: one durable, totally ordered log of record events for every consumer
 * (webhooks, realtime). Off until a plugin enables it while registering; then each record event
 * is a `svc_events` document that exists iff its write committed (a core durable effect), a
 * leased sequencer stamps a gap-free `seq` in commit order, and consumers read by `seq`: a
 * live follower per process, replay by a read, durable consumers with checkpoints.
 */
export class EventLog {
  readonly collection = EVENTS_COLLECTION
  readonly #d: EventLogDeps
  readonly #store: EventStore
  readonly #follower: Follower
  readonly #sequencer: Sequencer
  readonly #cursors: EventCursors
  readonly #consumers = new Map<string, DurableConsumer>()
  readonly #holder = randomUUID()
  #watch: EventWatch | null = null
  #enabled = false
  #started = false
  /** The longest retention asked for; null: nobody asked (the default applies). */
  #retainMs: number | null = null
  #mode: 'change-stream' | 'poll' | null = null

  constructor (deps: EventLogDeps) {
    this.#d = deps
    const { db, log, settings } = deps
    this.#store = new EventStore(db, deps.transactions)
    this.#follower = new Follower(this.#store, { pageSize: PAGE, pollMs: settings.pollMs, log })
    this.#sequencer = new Sequencer({
      db,
      store: this.#store,
      holder: this.#holder,
      leaseMs: settings.leaseMs,
      transactions: deps.transactions,
      batchSize: PAGE,
      pollMs: settings.pollMs,
      sweepIntervalMs: settings.sweepIntervalMs,
      retainMs: () => this.retentionMs,
      log,
      stamped: (head) => {
        this.#follower.announce(head)
      }
    })
    this.#cursors = new EventCursors(deps.cursorKey)
  }

  /** Whether a plugin enabled the log (its writes then cost one more insert each). */
  get enabled (): boolean {
    return this.#enabled
  }

  /** How the log follows itself, decided when the app is ready: `'change-stream'` or `'poll'` (null: not running). */
  get mode (): 'change-stream' | 'poll' | null {
    return this.#mode
  }

  /** Whether this process holds the sequencer lease now. */
  get leading (): boolean {
    return this.#sequencer.leading
  }

  /** The longest retention any consumer asked for (ms). */
  get retentionMs (): number {
    return this.#retainMs ?? DEFAULT_RETENTION_MS
  }

  /**
   * Turns the log on (idempotent), keeping events at least `retentionMs` (the longest request
   * wins; one hour when nobody asks). Call while registering a plugin: every write from then on
   * is logged.
   */
  enable (opts: { retentionMs?: number } = {}): void {
    if (this.#started) {
      throw new Error('@svc/core: eventLog.enable() must be called while plugins register, before the app is ready')
    }
    const retain = opts.retentionMs
    if (retain !== undefined) {
      if (!Number.isSafeInteger(retain) || retain < 0) {
        throw new Error('@svc/core: eventLog retentionMs must be a whole number of milliseconds >= 0')
      }
      this.#retainMs = Math.max(this.#retainMs ?? 0, retain)
    }
    if (this.#enabled) return
    this.#enabled = true
    for (const s of this.#d.services()) {
      s.addDurableEffect('svc-events', (result) => [
        { collection: EVENTS_COLLECTION, document: eventDoc(result, new Date(), this.#holder) }
      ])
      // A local write wakes the sequencer at once (if this process leads; others find it by polling or the stream).
      s.onWrite(() => {
        this.#sequencer.pump.nudge()
      })
    }
  }

  /**
   * A durable consumer (enables the log): `handler` gets every event once the log has it, in
   * order, in batches, on one process at a time; its checkpoint moves after each batch, so a
   * batch may be handed again after a crash — the handler must be idempotent. `handler: null`
   * declares the consumer without running it here (an API-only replica): its checkpoint exists
   * from the first start on, so events written before a worker starts are kept for it.
   */
  consume (name: string, handler: DurableHandler | null, opts: { retentionMs?: number } = {}): void {
    if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new Error('@svc/core: a durable event consumer needs a name of letters, digits, _ . -')
    }
    if (this.#consumers.has(name)) throw new Error(`@svc/core: event consumer '${name}' is already registered`)
    this.enable(opts)
    this.#consumers.set(
      name,
      new DurableConsumer(name, handler, {
        db: this.#d.db,
        store: this.#store,
        follower: this.#follower,
        holder: this.#holder,
        leaseMs: this.#d.settings.leaseMs,
        log: this.#d.log
      })
    )
  }

  /**
   * Follows the log in this process: events after `afterSeq` (null: from now) reach `handler`
   * in `seq` order — first those already in the log (replay), then live ones — without a gap or
   * a repeat. Resolves once live (an event stamped later always arrives). One query per batch
   * serves every subscription of the process.
   */
  async follow (afterSeq: number | null, handler: BatchHandler, opts: FollowOptions = {}): Promise<EventSubscription> {
    if (!this.#enabled || !this.#started) {
      throw new Error('@svc/core: eventLog.follow() needs the log enabled at registration and the app ready')
    }
    if (afterSeq !== null && (!Number.isSafeInteger(afterSeq) || afterSeq < 0)) {
      throw new TypeError('@svc/core: afterSeq must be a whole number >= 0 or null')
    }
    return await this.#follower.follow(afterSeq, handler, opts)
  }

  /** Stamped events after `afterSeq`, in order (a replay page). */
  async read (afterSeq: number, limit = 100): Promise<LoggedEvent[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
      throw new TypeError('@svc/core: limit must be between 1 and 1000')
    }
    return await this.#store.read(afterSeq, limit)
  }

  /** The highest stamped `seq` (0 when the log is empty). */
  async head (): Promise<number> {
    return await this.#store.lastSeq()
  }

  /**
   * Every event with a `seq` above this is still in the log; the retention sweep may have
   * removed those at or below it (a resume cursor below it missed events: re-read instead).
   */
  async retainedAfter (): Promise<number> {
    const doc = await this.#d.db.collection<SequencerDoc>(LEASES_COLLECTION).findOne({ _id: SEQUENCER_LEASE })
    return doc?.swept ?? 0
  }

  /** The opaque resume cursor of a position (HMAC-signed). */
  encodeCursor (seq: number): string {
    return this.#cursors.encode(seq)
  }

  /** The position of a cursor from `encodeCursor`; an altered or foreign one is 400 VALIDATION. */
  decodeCursor (cursor: unknown): number {
    return this.#cursors.decode(cursor)
  }

  /** Wakes the sequencer and follower of this process (tests, or a host that knows a write landed). */
  nudge (): void {
    this.#sequencer.pump.nudge()
    this.#follower.pump.nudge()
  }

  /** Starts the loops (core calls it when the app is ready); nothing runs while the log is off. */
  async start (): Promise<void> {
    if (this.#started) return
    this.#started = true
    if (!this.#enabled) return
    const { settings, log } = this.#d
    await this.#store.ensureIndexes()
    for (const c of this.#consumers.values()) await c.register()
    const targets = {
      events: EVENTS_COLLECTION,
      leases: LEASES_COLLECTION,
      sequencerLease: SEQUENCER_LEASE,
      origin: this.#holder
    }
    const streams = settings.changeStreams !== false && (await changeStreamsSupported(this.#d.db, targets))
    this.#mode = streams ? 'change-stream' : 'poll'
    this.#sequencer.pump.start()
    this.#follower.pump.start()
    for (const c of this.#consumers.values()) c.start()
    if (streams) {
      const relaxed = Math.max(settings.pollMs, Math.min(1000, settings.leaseMs / 3))
      this.#watch = new EventWatch(
        this.#d.db,
        targets,
        {
          inserted: () => {
            this.#sequencer.pump.nudge()
          },
          stamped: (head) => {
            this.#follower.announce(head)
          },
          up: () => {
            this.#pace(relaxed)
          },
          down: () => {
            this.#pace(settings.pollMs)
          }
        },
        { log, retryMs: settings.leaseMs / 3 }
      )
      this.#watch.start()
    }
    log.info(
      {
        mode: this.#mode,
        consumers: [...this.#consumers.values()].filter((c) => c.runs).map((c) => c.name),
        retentionMs: this.retentionMs
      },
      'event log running'
    )
  }

  #pace (ms: number): void {
    this.#sequencer.pump.setInterval(ms)
    this.#follower.pump.setInterval(ms)
    this.nudge()
  }

  async close (): Promise<void> {
    await this.#watch?.close()
    for (const c of this.#consumers.values()) await c.close()
    await this.#follower.close()
    await this.#sequencer.pump.stop()
    await this.#sequencer.close().catch((err: unknown) => {
      this.#d.log.warn({ err }, 'event sequencer lease not released')
    })
    this.#mode = null
  }
}
