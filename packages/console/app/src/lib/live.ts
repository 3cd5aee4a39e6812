// Live updates of an open table through the realtime feed, when `_describe` lists one (the typed
// client's resource then has `subscribe`). What a person sees must not jump under their cursor, so
// events never re-run the list: updates and deletes change the rows already shown, in place;
// creates (and anything the page cannot place: bulk writes, a feed reset) are counted and offered
// as "refresh", because whether a new record belongs to this filter, sort and page is the
// server's call to make.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { EventSubscription, RecordEvent } from '@svc/client'
import type { Rec, Resource } from './api.js'

export type LiveStatus = 'off' | 'connecting' | 'live' | 'reconnecting' | 'stopped'

/** What happened to a row shown since the list was read: `deleted` without a record is a hard delete. */
export interface RowChange {
  kind: 'updated' | 'deleted'
  record?: Rec
}

export interface LiveTable {
  status: LiveStatus
  /** Why the feed stopped (refused credentials or types); the table still works without it. */
  error: unknown
  /** Ids created since the list was read (not yet among the rows). */
  created: Set<string>
  /** Bulk writes or a reset: the rows may be out of date in ways the page cannot tell. */
  stale: boolean
  changes: Map<string, RowChange>
  /** The latest change, in words, for the live region. */
  announcement: string
  /** Call when the list is about to be read again: what it reads replaces what the feed said. */
  forget: () => void
}

const TYPES = ['created', 'updated', 'deleted']

interface State {
  created: Set<string>
  stale: boolean
  changes: Map<string, RowChange>
  announcement: string
}
const EMPTY: State = { created: new Set(), stale: false, changes: new Map(), announcement: '' }

export function useLiveTable (path: string, resource: Resource | undefined): LiveTable {
  const [status, setStatus] = useState<LiveStatus>('off')
  const [error, setError] = useState<unknown>(null)
  const [state, setState] = useState<State>(EMPTY)
  const sub = useRef<EventSubscription | null>(null)

  useEffect(() => {
    setState(EMPTY)
    setError(null)
    const subscribe = resource?.subscribe
    if (subscribe === undefined) {
      setStatus('off')
      return
    }
    setStatus('connecting')
    const s = subscribe(
      (event) => {
        setState((prev) => apply(prev, event))
      },
      {
        types: TYPES,
        // The subscription reconnects by itself (resuming from its cursor): the badge says so meanwhile.
        onConnect: () => {
          if (sub.current === s) setStatus('live')
        },
        onDisconnect: () => {
          if (sub.current === s) setStatus('reconnecting')
        }
      }
    )
    sub.current = s
    s.done.then(
      () => {
        if (sub.current === s) setStatus('off')
      },
      (err: unknown) => {
        if (sub.current === s) {
          setError(err)
          setStatus('stopped')
        }
      }
    )
    return () => {
      sub.current = null
      s.close()
    }
  }, [path, resource])

  const forget = useCallback(() => {
    setState(EMPTY)
  }, [])
  return { status, error, ...state, forget }
}

/** One event folded into what the table knows; a pure function of the previous state. */
export function apply (prev: State, event: RecordEvent): State {
  const id = event.recordId
  const record = event.record as Rec | undefined
  const action = event.type.slice(event.type.lastIndexOf('.') + 1)
  if (id === undefined) {
    return { ...prev, stale: true, announcement: `${event.numAffected ?? 'Some'} records changed at once` }
  }
  if (action === 'created') {
    return { ...prev, created: new Set(prev.created).add(id), announcement: 'A new record was created' }
  }
  const changes = new Map(prev.changes)
  if (action === 'deleted') {
    changes.set(id, { kind: 'deleted', ...(record !== undefined ? { record } : {}) })
    const created = new Set(prev.created)
    created.delete(id)
    return { ...prev, created, changes, announcement: 'A record was deleted' }
  }
  changes.set(id, { kind: 'updated', ...(record !== undefined ? { record } : {}) })
  return { ...prev, changes, announcement: 'A record was updated' }
}

/**
 * The rows as the feed says they are now: an updated row takes the event's record (the event
 * carries no included relations, so those stay as read); a soft-deleted one becomes its
 * tombstone (restore button included); a hard-deleted one is kept, marked, until a refresh.
 */
export function liveRows (rows: Rec[], changes: Map<string, RowChange>): { rows: Rec[]; marks: Map<string, string> } {
  const marks = new Map<string, string>()
  const out = rows.map((r) => {
    const c = changes.get(r._id)
    if (c === undefined) return r
    const deleted = c.kind === 'deleted'
    marks.set(
      r._id,
      deleted
        ? 'deleted'
        : (c.record?.deletedAt === null || c.record?.deletedAt === undefined) && r.deletedAt != null
            ? 'restored'
            : 'updated'
    )
    if (c.record === undefined) return r
    const next: Rec = { ...r, ...c.record }
    // A restore clears `deletedAt`: the event's record has no key for it.
    if (!deleted && !('deletedAt' in c.record)) delete next.deletedAt
    return next
  })
  return { rows: out, marks }
}
