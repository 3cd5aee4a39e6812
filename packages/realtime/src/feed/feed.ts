import { UnauthenticatedError, type RequestContext, type ResourceService } from '@svc/core'
import { type EventLog, type EventSubscription, type LoggedEvent } from '@svc/core/kit'
import type { FastifyBaseLogger } from 'fastify'
import type { FeedSink, FeedSubscription, OpenOptions } from '../types.js'
import { Presenter } from './presenter.js'
import { StreamSlots } from './stream-slots.js'
import { Subscriber } from './subscriber.js'
import { compileViews } from './views.js'

/** Events per replay read: a resuming client costs one indexed query per page. */
const REPLAY_PAGE = 500

export interface FeedDeps {
  eventLog: EventLog
  services: () => ResourceService[]
  slots: StreamSlots
  log: FastifyBaseLogger
}

/**
 * The process's one fan-out of the event log: a single live subscription to the log (one
 * query per batch whatever the number of streams), whose batches are handed in memory to the
 * subscribers indexed under the event's tenant — plus those that may see every tenant's events
 * of its schema (an `acl.list` role, an operator api client). A resuming subscriber first
 * reads the log from its cursor, then joins the live batches without a gap or a repeat.
 */
export class Feed {
  readonly #d: FeedDeps
  readonly #byTenant = new Map<string, Set<Subscriber>>()
  readonly #wide = new Map<string, Set<Subscriber>>()
  readonly #all = new Set<Subscriber>()
  #sub: EventSubscription | null = null
  /** The last `seq` handed to live subscribers. */
  #position = 0

  constructor (deps: FeedDeps) {
    this.#d = deps
  }

  get position (): number {
    return this.#position
  }

  get size (): number {
    return this.#all.size
  }

  async start (): Promise<void> {
    this.#sub = await this.#d.eventLog.follow(
      null,
      (events, position) => {
        this.#deliver(events, position)
      },
      {
        onError: (err) => {
          this.#d.log.error({ err }, 'realtime fan-out failed; its streams are closed')
          this.#failAll()
        }
      }
    )
    this.#position = this.#sub.position
  }

  /** See RealtimeApi.open. */
  async open (ctx: RequestContext, opts: OpenOptions, sink: FeedSink): Promise<FeedSubscription> {
    if (ctx.identity == null) throw new UnauthenticatedError()
    if (this.#sub === null) throw new Error('@svc/realtime: the feed is not running (the app is not ready)')
    const views = compileViews(this.#d.services(), ctx, opts.types ?? ['*'], opts.schemas)
    let after: number | null = null
    let reset = false
    if (opts.lastEventId !== undefined) {
      const seq = this.#d.eventLog.decodeCursor(opts.lastEventId)
      const [swept, head] = await Promise.all([this.#d.eventLog.retainedAfter(), this.#d.eventLog.head()])
      // Below the sweep mark events may be gone; above the head it is no cursor of this log.
      if (seq < swept || seq > head) reset = true
      else after = seq
    }
    const slot = StreamSlots.keyOf(ctx.identity)
    this.#d.slots.take(slot)
    // Synchronously from here: registered before anything else runs, so no live batch is missed.
    const start = after ?? this.#position
    const s: Subscriber = new Subscriber({
      ctx,
      views,
      sink,
      slot,
      last: start,
      live: start >= this.#position,
      reset,
      onClose: () => {
        this.#remove(s)
      }
    })
    this.#add(s)
    return {
      start: () => {
        this.#begin(s)
      },
      close: () => {
        s.close()
      },
      get closed () {
        return s.closed
      }
    }
  }

  #begin (s: Subscriber): void {
    if (s.closed) return
    if (s.pendingReset) {
      s.pendingReset = false
      s.sink.reset(this.#d.eventLog.encodeCursor(s.last))
    }
    if (!s.live) {
      this.#catchUp(s).catch((err: unknown) => {
        this.#d.log.warn({ err }, 'realtime replay failed; stream closed')
        s.sink.end('replay failed')
        s.close()
      })
    }
  }

  /** Reads the log after the subscriber's position until it has reached the live fan-out's. */
  async #catchUp (s: Subscriber): Promise<void> {
    while (!s.closed && !s.live) {
      const seen = this.#position
      const page = await this.#d.eventLog.read(s.last, REPLAY_PAGE)
      if (s.closed) return
      const presenter = new Presenter((seq) => this.#d.eventLog.encodeCursor(seq))
      for (const ev of page) s.consider(ev, presenter)
      if (page.length < REPLAY_PAGE && s.last < seen) {
        // The retention sweep removed events this replay had not read yet: the client must re-read.
        s.last = seen
        s.sink.reset(this.#d.eventLog.encodeCursor(seen))
      }
      // The client takes what was written before it gets live events (their writes are bounded).
      await s.sink.room()
      if (s.closed) return
      // Synchronously with the check: every later batch holds only what is newer than `last`.
      if (s.last >= this.#position) s.live = true
    }
  }

  #deliver (events: LoggedEvent[], position: number): void {
    const presenter = new Presenter((seq) => this.#d.eventLog.encodeCursor(seq))
    for (const ev of events) {
      if (ev.userId !== null) this.#offer(this.#byTenant.get(ev.userId), ev, presenter)
      this.#offer(this.#wide.get(`${ev.version}/${ev.path}`), ev, presenter)
    }
    this.#position = position
  }

  #offer (subs: Set<Subscriber> | undefined, ev: LoggedEvent, presenter: Presenter): void {
    if (subs === undefined) return
    for (const s of subs) {
      if (!s.live) continue
      try {
        s.consider(ev, presenter)
      } catch (err) {
        // A record that cannot be presented (a computed field's bug) ends this stream, not the fan-out.
        this.#d.log.error({ err, event: ev.id }, 'realtime event could not be presented; stream closed')
        s.sink.end('internal error')
        s.close()
      }
    }
  }

  #add (s: Subscriber): void {
    const { tenants, wide } = s.keys()
    for (const t of tenants) setOf(this.#byTenant, t).add(s)
    for (const k of wide) setOf(this.#wide, k).add(s)
    this.#all.add(s)
  }

  #remove (s: Subscriber): void {
    if (!this.#all.delete(s)) return
    const { tenants, wide } = s.keys()
    for (const t of tenants) dropFrom(this.#byTenant, t, s)
    for (const k of wide) dropFrom(this.#wide, k, s)
    this.#d.slots.give(s.slot)
  }

  #failAll (): void {
    for (const s of [...this.#all]) {
      s.sink.end('the event feed stopped')
      s.close()
    }
  }

  /** Ends every subscription (shutdown) and stops following the log. */
  close (): void {
    this.#failAll()
    this.#sub?.close()
    this.#sub = null
  }
}

function setOf (map: Map<string, Set<Subscriber>>, key: string): Set<Subscriber> {
  let set = map.get(key)
  if (set === undefined) {
    set = new Set()
    map.set(key, set)
  }
  return set
}

function dropFrom (map: Map<string, Set<Subscriber>>, key: string, s: Subscriber): void {
  const set = map.get(key)
  if (set === undefined) return
  set.delete(s)
  if (set.size === 0) map.delete(key)
}
