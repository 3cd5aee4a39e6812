import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { type ResourceService, SYSTEM_CONTEXT } from '@svc/core'
import { restoreRoutes } from './routes/restore-route.js'
import { liveScope, restoreRecord, tombstoneStrategy } from './service/tombstone.js'
import { sweepOnce } from './sweep/retention-sweep.js'
import { startSweepTimer } from './sweep/sweep-timer.js'
import type { SoftDeleteApi, SoftDeleteOptions } from './types.js'

export type { SoftDeleteApi, SoftDeleteOptions, SweepReport } from './types.js'
export { liveScope, restoreRecord, tombstoneStrategy } from './service/tombstone.js'

const HOUR_MS = 60 * 60 * 1000

function positiveDays (name: string, v: unknown): number | undefined {
  if (v === undefined || v === '') return undefined
  const n = typeof v === 'string' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
    throw new Error(`@svc/softdelete: ${name} must be a positive number of days`)
  }
  return n
}

async function softDelete (app: FastifyInstance, opts: SoftDeleteOptions): Promise<void> {
  const globalDays =
    positiveDays('retentionDays', opts.retentionDays) ??
    positiveDays('SOFT_DELETE_RETENTION_DAYS', process.env.SOFT_DELETE_RETENTION_DAYS)
  const intervalMs = opts.sweepIntervalMs ?? HOUR_MS
  if (!Number.isInteger(intervalMs) || intervalMs < 0) {
    throw new Error('@svc/softdelete: sweepIntervalMs must be a non-negative integer')
  }
  const batchSize = opts.sweepBatchSize ?? 100
  const now = opts.now ?? (() => new Date())
  const log = app.log.child({ name: '@svc/softdelete' })

  const services = app.svc.services.all().filter((s) => s.model.softDelete.enabled)
  const strategy = tombstoneStrategy(now)
  for (const service of services) {
    service.addScope(liveScope)
    service.setDeleteStrategy(strategy)
  }
  const retentionOf = (s: ResourceService): number | undefined => s.model.softDelete.retentionDays ?? globalDays
  for (const service of services) {
    // Every list's live scope: the page walks this index in the default order and the total is
    // counted from its keys (`deletedAt: null` is exact on it), not from the tenant's records.
    await service.ensureIndex(
      SYSTEM_CONTEXT,
      { userId: 1, deletedAt: 1, createdAt: -1, _id: -1 },
      { name: 'svc_softdelete_live_created_id' }
    )
    // The sweep's query; sparse keeps live records (no deletedAt) out of it.
    if (retentionOf(service) !== undefined) {
      await service.ensureIndex(SYSTEM_CONTEXT, { deletedAt: 1 }, { sparse: true, name: 'svc_softdelete_deleted_at' })
    }
  }

  const sweep: SoftDeleteApi['sweep'] = async () =>
    await sweepOnce({ services, retentionDays: retentionOf, now, batchSize })
  const api: SoftDeleteApi = {
    async restore (ctx, path, id, version = 'v1') {
      const service = app.svc.services.get(path, version)
      if (!service.model.softDelete.enabled) throw new Error(`@svc/softdelete: ${path} has soft delete off`)
      return await restoreRecord(service, ctx, id)
    },
    sweep,
    retentionDays: (path, version = 'v1') => retentionOf(app.svc.services.get(path, version))
  }
  app.svc.softDelete = api
  app.svc.features.softDelete = true

  const byVersion = new Map<string, ResourceService[]>()
  for (const s of services) byVersion.set(s.model.version, [...(byVersion.get(s.model.version) ?? []), s])
  for (const [version, list] of byVersion) {
    await app.register(restoreRoutes, {
      prefix: `/api/${version}`,
      services: list,
      restore: async (s, ctx, id) => await restoreRecord(s, ctx, id)
    })
  }

  if (intervalMs > 0 && services.some((s) => retentionOf(s) !== undefined)) {
    let timer: { stop: () => Promise<void> } | null = null
    app.addHook('onReady', async () => {
      timer = startSweepTimer(sweep, intervalMs, app.svc.db, log)
    })
    app.addHook('onClose', async () => {
      await timer?.stop()
    })
  }
}

export default fp(softDelete, { name: '@svc/softdelete', fastify: '5.x', dependencies: ['@svc/core'] })
export { softDelete }
