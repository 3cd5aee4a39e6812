import type { SseStream } from './sse-stream.js'

/**
 * One timer for every open stream: every quarter period it writes a comment line to the
 * streams idle for half of it, so none stays silent for more than ¾ of `periodMs` (slack for a
 * late timer on a busy process) — without a timer per stream.
 */
export class Heartbeat {
  readonly streams = new Set<SseStream>()
  readonly #timer: NodeJS.Timeout

  constructor (periodMs: number) {
    const half = periodMs / 2
    this.#timer = setInterval(() => {
      for (const s of this.streams) if (s.idleMs >= half) s.heartbeat()
    }, periodMs / 4)
    this.#timer.unref()
  }

  stop (): void {
    clearInterval(this.#timer)
  }
}
