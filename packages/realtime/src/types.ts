import type { RequestContext } from '@svc/core'
import type { PublishedEvent } from '@svc/core/kit'

/** Options of the @svc/realtime plugin (the reference server reads them from `REALTIME_*`). */
export interface RealtimeOptions {
  /**
   * Hours a resume cursor stays good: the event log keeps every event at least this long (the
   * longest retention any consumer asks for wins). Fractions allowed. Default 24.
   */
  retentionHours?: number
  /** A comment line at least this often on an idle stream (seconds, fractions allowed); default 15. */
  heartbeatSeconds?: number
  /** Concurrent streams per tenant in this process (SSE and GraphQL subscriptions together); default 20. */
  maxStreamsPerUser?: number
  /**
   * Bytes a live stream may have waiting for a client that does not read; past it the stream is
   * closed (the client resumes with `Last-Event-ID`). Default 262144 (256 KiB).
   */
  maxBufferedBytes?: number
  /** Lifetime of a browser ticket (seconds); default 60. */
  ticketTtlSeconds?: number
  /** Where the routes are mounted; default `/api/v1` (`GET <prefix>/_events`, `POST <prefix>/_events/tickets`). */
  prefix?: string
}

/** An event as a subscriber receives it: projected for it, with its resume cursor. */
export interface DeliveredEvent {
  /** The opaque resume cursor (the SSE `id:`). */
  readonly cursor: string
  readonly type: string
  /** The SSE `data:` object: `{ id, type, version, userId, recordId, record, at }` or the bulk form. */
  readonly data: EventData
  /** `data` as one SSE message (built once, shared by every stream with the same view). */
  frame: () => string
}

/** Core's published event with the time it was logged, as an ISO string. */
export interface EventData extends PublishedEvent {
  at: string
}

/** Where a subscription's events go. Called synchronously by the fan-out; must not throw. */
export interface FeedSink {
  /** `replay`: read from the log while catching up (the sink may buffer a page of those). */
  deliver: (event: DeliveredEvent, replay: boolean) => void
  /** The cursor was past retention (or unknown here): the client must re-read; live events follow. */
  reset: (cursor: string) => void
  /** Resolves once the sink can take more (a replay waits between pages); rejects or resolves when it closed. */
  room: () => Promise<void>
  /** The subscription ended from the feed's side (shutdown, a failed replay): release the client. */
  end: (reason: string) => void
}

export interface OpenOptions {
  /** Webhook patterns (`orders.created`, `orders.*`, `*`); default `['*']`. */
  types?: readonly string[]
  /** A cursor this service gave out (`Last-Event-ID`): replay what came after it, then go live. */
  lastEventId?: string
  /** Only these schemas (`<version>/<path>` keys) may be named: a per-schema GraphQL subscription. */
  schemas?: readonly string[]
}

/** A live subscription of the feed (see RealtimeApi.open). */
export interface FeedSubscription {
  /** Starts delivering (first a `reset` or the replay when there is one); call once the client has its answer. */
  start: () => void
  /** Ends it and frees its slot at once. */
  close: () => void
  readonly closed: boolean
}

/** `app.svc.realtime`: the feed every surface (SSE, GraphQL subscriptions) opens subscriptions on. */
export interface RealtimeApi {
  /**
   * Opens a subscription for `ctx` (401 without an identity, 400 for bad patterns or cursor, 403
   * for a schema closed to an api client, 429 past the tenant's streams). Resolves once it is
   * live: an event stamped from then on reaches `sink`.
   */
  open: (ctx: RequestContext, opts: OpenOptions, sink: FeedSink) => Promise<FeedSubscription>
  /** The settings in force. */
  readonly settings: RealtimeSettings
}

export interface RealtimeSettings {
  retentionHours: number
  heartbeatSeconds: number
  maxStreamsPerUser: number
  maxBufferedBytes: number
  ticketTtlSeconds: number
  prefix: string
}

declare module '@svc/core' {
  interface SvcContext {
    /** Present when @svc/realtime is registered. */
    realtime?: RealtimeApi
  }
}
