import type { FastifyBaseLogger } from 'fastify'

/**
 * A background job of a plugin (retention sweep, orphan reconciler): runs every `intervalMs` on
 * an unref'd timer (it never keeps the process alive) and never overlaps itself; a failure is
 * logged as `<name> failed` and the next tick runs as usual. `stop()` waits for a run in flight,
 * so an `onClose` hook leaves no query behind.
 */
export function startPeriodic (
  name: string,
  run: () => Promise<unknown>,
  intervalMs: number,
  log: FastifyBaseLogger
): { stop: () => Promise<void> } {
  let running: Promise<unknown> | null = null
  const timer = setInterval(() => {
    if (running != null) return
    running = run()
      .catch((err: unknown) => {
        log.error({ err }, `${name} failed`)
      })
      .finally(() => {
        running = null
      })
  }, intervalMs)
  timer.unref()
  return {
    async stop () {
      clearInterval(timer)
      await running
    }
  }
}
