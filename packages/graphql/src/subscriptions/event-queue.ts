import type { DeliveredEvent, FeedSink } from '@svc/realtime'

/** What a subscription's iterator yields: an event, or a `reset` (the cursor was past retention). */
export type QueuedEvent = DeliveredEvent | { reset: string }

/**
 * A feed sink read as an async iterator (what graphql-js subscriptions consume). Live events
 * wait here while the socket is busy; past `max` of them the client counts as a slow consumer:
 * `onSlow` drops its connection (it resumes with `lastEventId`) instead of buffering without bound.
 */
export class EventQueue implements FeedSink, AsyncIterableIterator<QueuedEvent> {
  readonly #max: number
  readonly #onSlow: () => void
  #items: QueuedEvent[] = []
  #wake: (() => void) | null = null
  #roomWaiters: Array<() => void> = []
  #failure: Error | null = null
  #done = false
  onReturn: () => void = () => {}

  constructor (max: number, onSlow: () => void) {
    this.#max = max
    this.#onSlow = onSlow
  }

  deliver (event: DeliveredEvent, replay: boolean): void {
    if (this.#done) return
    this.#items.push(event)
    if (!replay && this.#items.length > this.#max) {
      this.#fail(new Error('slow consumer: the subscription fell too far behind; resubscribe with lastEventId'))
      this.#onSlow()
      return
    }
    this.#notify()
  }

  reset (cursor: string): void {
    this.#items.push({ reset: cursor })
    this.#notify()
  }

  async room (): Promise<void> {
    if (this.#done || this.#items.length < this.#max / 2) return
    await new Promise<void>((resolve) => {
      this.#roomWaiters.push(resolve)
    })
  }

  end (reason: string): void {
    this.#fail(new Error(reason))
  }

  async next (): Promise<IteratorResult<QueuedEvent>> {
    for (;;) {
      const item = this.#items.shift()
      if (item !== undefined) {
        if (this.#items.length < this.#max / 2) for (const w of this.#roomWaiters.splice(0)) w()
        return { value: item, done: false }
      }
      if (this.#failure !== null) throw this.#failure
      if (this.#done) return { value: undefined, done: true }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
  }

  async return (): Promise<IteratorResult<QueuedEvent>> {
    this.#close()
    return { value: undefined, done: true }
  }

  [Symbol.asyncIterator] (): this {
    return this
  }

  #fail (err: Error): void {
    if (this.#done) return
    this.#failure = err
    this.#items = []
    this.#close()
  }

  #close (): void {
    if (this.#done) return
    this.#done = true
    for (const w of this.#roomWaiters.splice(0)) w()
    this.#notify()
    this.onReturn()
  }

  #notify (): void {
    const wake = this.#wake
    this.#wake = null
    wake?.()
  }
}
