import type { FastifyBaseLogger } from 'fastify'

/**
 * A background loop for one job of the event log (the sequencer, the follower, a durable
 * consumer): `step()` runs on a nudge or every `intervalMs`, never overlapping itself; nudges
 * during a run make exactly one more run, `minGapMs` after it, so a burst of writes costs one
 * query (a stamping batch, a read) per gap, not one each, while a lone write is served at once.
 * `step` answers true when it has more to do at once. A failing step is logged and retried at
 * the next tick. Timers are unref'd: the loop never keeps a process alive.
 */
export class Pump {
  readonly #name: string
  readonly #step: () => Promise<boolean>
  readonly #log: FastifyBaseLogger
  #intervalMs: number
  readonly #minGapMs: number
  #dirty = false
  #closed = true
  #wake: (() => void) | null = null
  #done: Promise<void> = Promise.resolve()

  constructor (name: string, step: () => Promise<boolean>, intervalMs: number, log: FastifyBaseLogger, minGapMs = 0) {
    this.#name = name
    this.#step = step
    this.#intervalMs = intervalMs
    this.#log = log
    this.#minGapMs = minGapMs
  }

  start (): void {
    if (!this.#closed) return
    this.#closed = false
    this.#done = this.#loop()
  }

  /** Run again as soon as the current run (if any) ends. */
  nudge (): void {
    this.#dirty = true
    this.#wake?.()
  }

  /** The idle period (a change stream that wakes the loop lets it be long). */
  setInterval (ms: number): void {
    this.#intervalMs = ms
  }

  async stop (): Promise<void> {
    this.#closed = true
    this.#wake?.()
    await this.#done
  }

  async #loop (): Promise<void> {
    while (!this.#closed) {
      this.#dirty = false
      let again = false
      try {
        again = await this.#step()
      } catch (err) {
        this.#log.error({ err }, `${this.#name} failed; retried`)
        this.#dirty = false
      }
      if (this.#closed) break
      if (!again && !this.#dirty) await this.#sleep(this.#intervalMs)
      // Nudges that came meanwhile are served together after a short gap: a burst of writes, one run.
      else if (!again && this.#minGapMs > 0) await this.#sleep(this.#minGapMs, false)
    }
  }

  async #sleep (ms: number, wakeable = true): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      function done (): void {
        clearTimeout(timer)
        resolve()
      }
      if (wakeable || this.#closed) {
        this.#wake = () => {
          this.#wake = null
          done()
        }
      }
    })
  }
}
