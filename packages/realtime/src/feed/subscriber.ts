import type { RequestContext } from '@svc/core'
import type { LoggedEvent } from '@svc/core/kit'
import type { FeedSink } from '../types.js'
import type { Presenter } from './presenter.js'
import type { View } from './views.js'

/**
 * One open subscription: its views (schemas, actions, audience) and its position in the log.
 * While catching up (a replay) the fan-out passes it by; once live it gets each batch in
 * memory. `last` only moves forward, so an event offered twice (a live batch after a replay
 * read the same event, or a subscriber indexed under two keys) is handled once.
 */
export class Subscriber {
  readonly ctx: RequestContext
  readonly views: Map<string, View>
  readonly sink: FeedSink
  /** The stream-limit key (the tenant) whose slot this holds. */
  readonly slot: string
  /** The highest `seq` this subscriber has passed (delivered or not for it). */
  last: number
  live: boolean
  /** The feed owes it a `reset` message before anything else. */
  pendingReset: boolean
  closed = false
  #onClose: () => void

  constructor (a: {
    ctx: RequestContext
    views: Map<string, View>
    sink: FeedSink
    slot: string
    last: number
    live: boolean
    reset: boolean
    onClose: () => void
  }) {
    this.ctx = a.ctx
    this.views = a.views
    this.sink = a.sink
    this.slot = a.slot
    this.last = a.last
    this.live = a.live
    this.pendingReset = a.reset
    this.#onClose = a.onClose
  }

  /** Tenants whose events may reach it (its index keys), and whether other tenants' of some schema can. */
  keys (): { tenants: Set<string>; wide: string[] } {
    const tenants = new Set<string>()
    const wide: string[] = []
    for (const [key, view] of this.views) {
      if (view.audience.tenant === null) wide.push(key)
      else tenants.add(view.audience.tenant)
    }
    return { tenants, wide }
  }

  /** Hands `ev` to the sink when it is new to this subscriber and it asked for it and may see it. */
  consider (ev: LoggedEvent, presenter: Presenter): void {
    if (ev.seq <= this.last || this.closed) return
    this.last = ev.seq
    const view = this.views.get(`${ev.version}/${ev.path}`)
    if (view === undefined) return
    if (view.actions !== null && !view.actions.has(ev.type.slice(ev.type.lastIndexOf('.') + 1))) return
    if (!view.audience.sees(ev)) return
    this.sink.deliver(presenter.get(ev, view, this.ctx), !this.live)
  }

  close (): void {
    if (this.closed) return
    this.closed = true
    this.#onClose()
  }
}
