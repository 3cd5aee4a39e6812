import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ResourceService } from '@svc/core'
import { readHistory } from './history/history.js'
import { buildRows } from './record/build-rows.js'
import { historyRoutes } from './routes/history-route.js'
import { AuditStore } from './store/audit-store.js'
import type { AuditApi, AuditOptions } from './types.js'

export type { AuditAction, AuditActor, AuditApi, AuditDiff, AuditOptions, AuditRow, HistoryEntry, HistoryPage } from './types.js'
export { AUDIT_COLLECTION, FAILURES_COLLECTION } from './store/audit-store.js'
export { diffRecords } from './record/diff.js'

async function audit (app: FastifyInstance, opts: AuditOptions): Promise<void> {
  const retryIntervalMs = opts.retryIntervalMs ?? 60_000
  if (!Number.isInteger(retryIntervalMs) || retryIntervalMs < 0) throw new Error('@svc/audit: retryIntervalMs must be a non-negative integer')
  const now = opts.now ?? (() => new Date())
  const log = app.log.child({ name: '@svc/audit' })
  const store = new AuditStore(app.svc.db)
  await store.ensureIndexes()

  const services = app.svc.services.all().filter((s) => s.model.audit)
  for (const service of services) {
    service.wantBulkRecords()
    service.onWrite(async (result) => {
      const reqLog = (result.ctx.req as { log?: typeof log } | undefined)?.log ?? log
      await store.write(buildRows(result, now()), reqLog)
    })
  }

  const history: AuditApi['history'] = async (ctx, path, id, paging = {}, version = 'v1') => {
    const service = app.svc.services.get(path, version)
    if (!service.model.audit) throw new Error(`@svc/audit: ${path} has audit off`)
    return await readHistory(store, service, ctx, id, paging, app.svc.config.pageSize)
  }
  app.svc.audit = { history, retryFailures: async () => await store.retryFailures(log) }
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

  if (retryIntervalMs > 0) {
    let timer: NodeJS.Timeout | null = null
    let running: Promise<unknown> | null = null
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        if (running != null) return
        running = store.retryFailures(log)
          .catch((err: unknown) => { log.error({ err }, 'audit retry failed') })
          .finally(() => { running = null })
      }, retryIntervalMs)
      timer.unref() // never keeps the process alive
    })
    app.addHook('onClose', async () => {
      if (timer != null) clearInterval(timer)
      await running
    })
  }
}

export default fp(audit, { name: '@svc/audit', fastify: '5.x', dependencies: ['@svc/core'] })
export { audit }
