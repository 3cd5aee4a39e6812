import type { FastifyBaseLogger } from 'fastify'
import type { SweepReport } from '../types.js'

/**
 * Runs the sweep every `intervalMs` on an unref'd timer (it never keeps the process alive),
 * never overlapping itself; `stop()` waits for a sweep in flight so onClose leaves no query behind.
 */
export function startSweepTimer (sweep: () => Promise<SweepReport>, intervalMs: number, log: FastifyBaseLogger): { stop: () => Promise<void> } {
  let running: Promise<unknown> | null = null
  const timer = setInterval(() => {
    if (running != null) return
    running = sweep()
      .then((r) => { if (Object.keys(r.purged).length > 0) log.info({ purged: r.purged }, 'purged expired tombstones') })
      .catch((err: unknown) => { log.error({ err }, 'retention sweep failed') })
      .finally(() => { running = null })
  }, intervalMs)
  timer.unref()
  return {
    async stop () {
      clearInterval(timer)
      await running
    }
  }
}
