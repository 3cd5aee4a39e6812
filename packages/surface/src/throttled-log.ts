/**
 * Reports a recurring failure (Redis down) at most once per interval with the number of
 * occurrences since the last report, so an outage is visible without flooding the log.
 */
export class ThrottledReporter {
  readonly #intervalMs: number
  readonly #report: (err: unknown, suppressed: number) => void
  #last = -Infinity
  #suppressed = 0

  constructor (intervalMs: number, report: (err: unknown, suppressed: number) => void) {
    this.#intervalMs = intervalMs
    this.#report = report
  }

  failed (err: unknown): void {
    const now = Date.now()
    if (now - this.#last < this.#intervalMs) {
      this.#suppressed++
      return
    }
    this.#report(err, this.#suppressed)
    this.#last = now
    this.#suppressed = 0
  }
}
