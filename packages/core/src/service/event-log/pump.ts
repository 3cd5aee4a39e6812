import type { FastifyBaseLogger } from 'fastify'

/**
 * A background loop for one job of the event log (the sequencer, the follower, a durable
 * consumer): `step()` runs on a nudge or every `intervalMs`, never overlapping itself; a nudge
 * during a run makes exactly one more run, so a burst of writes costs one query, not one each.
 * `step` answers true when it has more to do at once. A failing step is logged and retried at
 * the next tick. Timers are unref'd: the loop never keeps a process alive.
 */
export class Pump {
  readonly #name: string
  readonly #step: () => Promise<boolean>
  readonly #log: FastifyBaseLogger
  #intervalMs: number
  #dirty = false
  #closed = true
  #wake: (() => void) | null = null
  #done: Promise<void> = Promise.resolve()

  constructor (name: string, step: () => Promise<boolean>, intervalMs: number, log: FastifyBaseLogger) {
    this.#name = name
    this.#step = step
    this.#intervalMs = intervalMs
    this.#log = log
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
      if (!again && !this.#dirty) await this.#sleep()
    }
  }

  async #sleep (): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#intervalMs)
      timer.unref()
      function done (): void { clearTimeout(timer); resolve() }
      this.#wake = () => { this.#wake = null; done() }
    })
  }
}
