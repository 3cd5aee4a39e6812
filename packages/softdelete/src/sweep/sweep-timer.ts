import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from 'mongodb'
import { Lease, startPeriodic } from '@svc/core/kit'
import type { SweepReport } from '../types.js'

export const SWEEP_LEASE = 'svc_softdelete.sweep'
const MIN_LEASE_MS = 30_000

/**
 * The retention sweep on core's periodic timer, run by one replica at a time: each tick takes or
 * renews the lease `svc_softdelete.sweep` (in core's `svc_leases`) and skips the sweep when another
 * process holds it. The lease lasts two intervals (at least 30 s, so a stalled event loop does not
 * hand it over), so a holder that dies is taken over within three (or 30 s and one); a clean close
 * releases it at once. (Concurrent sweeps would only repeat work: this
 * spares the database N replicas' identical scans.)
 */
export function startSweepTimer (
  sweep: () => Promise<SweepReport>,
  intervalMs: number,
  db: Db,
  log: FastifyBaseLogger
): { stop: () => Promise<void> } {
  const lease = new Lease(db, SWEEP_LEASE, randomUUID(), Math.max(2 * intervalMs, MIN_LEASE_MS))
  const periodic = startPeriodic(
    'retention sweep',
    async () => {
      if (!(await lease.acquire())) return
      const r = await sweep()
      if (Object.keys(r.purged).length > 0) log.info({ purged: r.purged }, 'purged expired tombstones')
    },
    intervalMs,
    log
  )
  return {
    async stop () {
      await periodic.stop()
      // Matches only while we are the holder: a replica that never held it changes nothing.
      await lease.release()
    }
  }
}
