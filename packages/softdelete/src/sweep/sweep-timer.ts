import type { FastifyBaseLogger } from 'fastify'
import { startPeriodic } from '@svc/core'
import type { SweepReport } from '../types.js'

/** The retention sweep on core's periodic timer; logs what each run purged. */
export function startSweepTimer (sweep: () => Promise<SweepReport>, intervalMs: number, log: FastifyBaseLogger): { stop: () => Promise<void> } {
  return startPeriodic('retention sweep', async () => {
    const r = await sweep()
    if (Object.keys(r.purged).length > 0) log.info({ purged: r.purged }, 'purged expired tombstones')
  }, intervalMs, log)
}
