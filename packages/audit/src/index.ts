import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ResourceService } from '@svc/core'
import { readHistory } from './history/history.js'
import { buildRows } from './record/build-rows.js'
import { historyRoutes } from './routes/history-route.js'
import { AUDIT_COLLECTION, AuditStore } from './store/audit-store.js'
import type { AuditApi, AuditOptions } from './types.js'

export type {
  AuditAction,
  AuditActor,
  AuditApi,
  AuditDiff,
  AuditOptions,
  AuditRow,
  HistoryEntry,
  HistoryPage
} from './types.js'
export { AUDIT_COLLECTION } from './store/audit-store.js'
export { diffRecords } from './record/diff.js'

async function audit (app: FastifyInstance, opts: AuditOptions): Promise<void> {
  const now = opts.now ?? (() => new Date())
  const log = app.log.child({ name: '@svc/audit' })
  const store = new AuditStore(app.svc.db)
  await store.ensureIndexes()
  await store.migrateParkedRows(log)

  const services = app.svc.services.all().filter((s) => s.model.audit)
  for (const service of services) {
    service.wantBulkRecords()
    // Core's durable effects: the rows exist iff the write committed (a transaction on a
    // replica set, a reconciled write-ahead intent on a standalone server).
    // `migrations: true`: records `svc schema apply` migrates get their row too (action 'migrate').
    service.addDurableEffect(
      'audit',
      (result) => buildRows(result, now()).map((document) => ({ collection: AUDIT_COLLECTION, document })),
      { migrations: true }
    )
  }

  const history: AuditApi['history'] = async (ctx, path, id, paging = {}, version = 'v1') => {
    const service = app.svc.services.get(path, version)
    if (!service.model.audit) throw new Error(`@svc/audit: ${path} has audit off`)
    return await readHistory(store, service, ctx, id, paging, app.svc.config.pageSize)
  }
  app.svc.audit = { history }
  app.svc.features.audit = true

  const byVersion = new Map<string, ResourceService[]>()
  for (const s of services) byVersion.set(s.model.version, [...(byVersion.get(s.model.version) ?? []), s])
  for (const [version, list] of byVersion) {
    await app.register(historyRoutes, {
      prefix: `/api/${version}`,
      services: list,
      history: async (s, ctx, id, paging) => await readHistory(store, s, ctx, id, paging, app.svc.config.pageSize)
    })
  }
}

export default fp(audit, { name: '@svc/audit', fastify: '5.x', dependencies: ['@svc/core'] })
export { audit }
