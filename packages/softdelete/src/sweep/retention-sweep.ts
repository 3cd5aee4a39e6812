import { type ResourceService, SYSTEM_CONTEXT } from '@svc/core'
import type { SweepReport } from '../types.js'

const DAY_MS = 24 * 60 * 60 * 1000

export interface SweepDeps {
  services: ResourceService[]
  retentionDays: (service: ResourceService) => number | undefined
  now: () => Date
  batchSize: number
}

/**
 * Removes tombstones older than their schema's retention, then hands them to the purge hooks
 * (`@svc/files` deletes their blobs there).
 *
 * Rows go first, blobs after: a crash in between leaves orphan blobs (wasted storage) but never
 * a record — restorable until it is gone — pointing at a deleted blob. Core's
 * `purgeDeletedBefore` removes each row once, whichever replica sweeps, and keeps a record
 * restored meanwhile.
 */
export async function sweepOnce (deps: SweepDeps): Promise<SweepReport> {
  const report: SweepReport = { purged: {} }
  for (const service of deps.services) {
    const days = deps.retentionDays(service)
    if (days === undefined) continue
    const cutoff = new Date(deps.now().getTime() - days * DAY_MS)
    const n = await sweepService(service, cutoff, deps)
    if (n > 0) report.purged[service.model.key] = n
  }
  return report
}

async function sweepService (service: ResourceService, cutoff: Date, deps: SweepDeps): Promise<number> {
  return await service.purgeDeletedBefore(SYSTEM_CONTEXT, cutoff, { batchSize: deps.batchSize })
}
