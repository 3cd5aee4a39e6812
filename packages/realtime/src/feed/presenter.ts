import { type RequestContext } from '@svc/core'
import { toJson, type LoggedEvent } from '@svc/core/kit'
import type { DeliveredEvent, EventData } from '../types.js'
import type { View } from './views.js'

/**
 * Presents the events of one batch: each event once per readable-field set, through the
 * resource service's own output boundary (computed fields, `availableTransitions`, the read
 * ACL) — the record as the subscriber's list would show it, never the stored document. The
 * SSE message text is built once too, so a thousand streams with one view share one string.
 */
export class Presenter {
  readonly #cursor: (seq: number) => string
  readonly #cursors = new Map<number, string>()
  readonly #done = new Map<string, DeliveredEvent>()

  constructor (cursor: (seq: number) => string) {
    this.#cursor = cursor
  }

  get (ev: LoggedEvent, view: View, ctx: RequestContext): DeliveredEvent {
    const key = `${ev.seq}|${view.readKey}`
    let out = this.#done.get(key)
    if (out === undefined) {
      out = delivered(this.#cursorOf(ev.seq), ev.type, eventData(ev, view, ctx))
      this.#done.set(key, out)
    }
    return out
  }

  #cursorOf (seq: number): string {
    let c = this.#cursors.get(seq)
    if (c === undefined) {
      c = this.#cursor(seq)
      this.#cursors.set(seq, c)
    }
    return c
  }
}

export function delivered (cursor: string, type: string, data: EventData): DeliveredEvent {
  let frame: string | null = null
  return {
    cursor,
    type,
    data,
    frame: () => (frame ??= `id: ${cursor}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`)
  }
}

/** A bulk write's filter may only name fields the subscriber can read (its values are another reader's). */
function readableFilter (
  filter: Record<string, unknown>,
  readable: ReadonlySet<string> | null
): Record<string, unknown> {
  if (readable === null) return toJson(filter)
  return toJson(Object.fromEntries(Object.entries(filter).filter(([k]) => readable.has(k.split('.')[0]))))
}

function eventData (ev: LoggedEvent, view: View, ctx: RequestContext): EventData {
  const base = { id: ev.id, type: ev.type, version: ev.version, userId: ev.userId }
  const at = ev.at instanceof Date ? ev.at.toISOString() : String(ev.at)
  if (ev.numAffected !== undefined) {
    return { ...base, filter: readableFilter(ev.filter ?? {}, view.audience.readable), numAffected: ev.numAffected, at }
  }
  return {
    ...base,
    ...(ev.recordId !== undefined ? { recordId: ev.recordId } : {}),
    ...(ev.record !== undefined ? { record: view.service.present(ctx, ev.record) } : {}),
    at
  }
}
