import { createHash } from 'node:crypto'
import type { RecordJson, WriteResult } from '../types.js'

export const EVENTS_COLLECTION = 'svc_events'

/** A record event as the log stores it: inserted with the write (`pending`), stamped with `seq` later. */
export interface EventDoc {
  /** The event id: unique per record event, the same when a write is replayed. */
  _id: string
  type: string
  version: string
  path: string
  /** The record's owner (the tenant whose event it is), not the actor. */
  userId: string | null
  recordId?: string
  /** The record as written (a delete: as removed or tombstoned), unprojected. */
  record?: RecordJson
  /** Bulk writes: the caller's (cast) filter and how many records it touched. */
  filter?: Record<string, unknown>
  numAffected?: number
  /** `<path>.transitioned`: the state field and its move. */
  transition?: { field: string; from: string | null; to: string }
  at: Date
  /**
   * Present until the sequencer stamps `seq` (a small partial index finds these): the order to
   * stamp in — write time in µs, strictly increasing within a process, so the results of one
   * write (`updated`, then `transitioned`) keep their order.
   */
  pending?: number
  seq?: number
  /** The process that wrote it (its event log's holder id): that process's change stream skips it, its own write already woke its loops. */
  origin?: string
}

/** A stamped event as consumers get it. */
export interface LoggedEvent {
  /** Unique per record event: the webhook body `id`, realtime's `data.id`. */
  id: string
  /** Position in the log: increasing in the order the sequencer saw the writes commit. */
  seq: number
  type: string
  version: string
  path: string
  userId: string | null
  recordId?: string
  record?: RecordJson
  filter?: Record<string, unknown>
  numAffected?: number
  transition?: { field: string; from: string | null; to: string }
  at: Date
}

/**
 * An event as a consumer hands it out — a webhook body, realtime's SSE `data` — declared once here:
 * the log's fields that leave the service, the record projected to what its reader may see.
 */
export interface PublishedEvent {
  /** The log's event id: the same for every subscriber the event reaches. */
  id: string
  type: string
  version: string
  userId: string | null
  recordId?: string
  record?: Record<string, unknown>
  filter?: Record<string, unknown>
  numAffected?: number
}

/**
 * A UUID-shaped id (version 5 layout) hashed from `key`: a write's effects may be built again
 * when it is replayed, and the replay must land on the same event.
 */
export function derivedUuid (key: string): string {
  const h = createHash('sha256').update(key).digest()
  h[6] = (h[6] & 0x0f) | 0x50
  h[8] = (h[8] & 0x3f) | 0x80
  const hex = h.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The event id of one write result. A write may yield several results under one `writeId`
 * (createMany: one per record; a PUT: `updated` and a `transitioned` per state field; an
 * upserting bulk PUT: `created` and the bulk `updated`), so record, action and field are keyed too.
 */
export function eventId (result: WriteResult): string {
  return derivedUuid(`${result.writeId}:${result.recordId ?? ''}:${result.action}:${result.transition?.field ?? ''}`)
}

let lastOrder = 0

/** Microseconds since the epoch, strictly increasing within this process. */
function nextOrder (now: number): number {
  lastOrder = Math.max(lastOrder + 1, now * 1000)
  return lastOrder
}

/** The log document of one write result (the in-process record event's type, owner and payload), written by `origin`. */
export function eventDoc (result: WriteResult, at: Date, origin?: string): EventDoc {
  const { model } = result
  const owner = result.after?.userId ?? result.before?.userId
  const bulk = result.numAffected !== undefined
  const record = result.after ?? result.before ?? undefined
  return {
    _id: eventId(result),
    type: `${model.path}.${result.action}`,
    version: model.version,
    path: model.path,
    userId: typeof owner === 'string' ? owner : (result.ctx.identity?.userId ?? null),
    ...(result.recordId !== undefined ? { recordId: result.recordId } : {}),
    ...(record != null && !bulk ? { record } : {}),
    ...(bulk ? { filter: result.filter ?? {}, numAffected: result.numAffected } : {}),
    ...(result.transition !== undefined ? { transition: result.transition } : {}),
    at,
    pending: nextOrder(at.getTime()),
    ...(origin !== undefined ? { origin } : {})
  }
}

/** The consumer's view of a stored, stamped document. */
export function loggedEvent (doc: EventDoc & { seq: number }): LoggedEvent {
  const { _id, pending: _pending, origin: _origin, ...rest } = doc
  return { id: _id, ...rest }
}
