import type { Document } from 'mongodb'
import type { ResourceService } from '@svc/core'
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
 * a record — restorable until it is gone — pointing at a deleted blob. Each row is removed with
 * its own `findOneAndDelete`, so with several replicas sweeping at once every tombstone is
 * removed, and its blobs handed to the hooks, by exactly one of them; the `deletedAt` guard
 * re-checked there keeps a record restored meanwhile.
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
  const expired = { deletedAt: { $lt: cutoff } }
  let total = 0
  for (;;) {
    const candidates = await service.collection.find(expired, { projection: { _id: 1 }, limit: deps.batchSize }).toArray()
    const purged: Document[] = []
    for (const c of candidates) {
      const doc = await service.collection.findOneAndDelete({ _id: c._id, ...expired })
      if (doc != null) purged.push(doc)
    }
    if (purged.length > 0) {
      total += purged.length
      await service.purged(purged)
    }
    if (candidates.length < deps.batchSize) return total
  }
}
