import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Document } from 'mongodb'
import type { RequestContext } from '../identity.js'
import type { MigratedRecord } from '../service/migrate-batch.js'
import type { MigrationStep } from '../service/migration-steps.js'
import type { ResourceService } from '../service/resource-service.js'
import { MigrationStore } from './migration-store.js'
import { stepsFor, type PlanDeps } from './plan.js'

export interface ApplyOptions {
  /** Read and compute everything, write nothing; answers counts and before/after samples. */
  dryRun?: boolean
  /** Records per batch (one transaction or intent group each); default 500, at most 1000. */
  batchSize?: number
  /** At most this many records read per second (throttle); default 2000, 0 = unthrottled. */
  rate?: number
  /** Only this tenant's records (a canary); the migrations are then not marked applied. */
  tenant?: string
  /** Dry run: how many changed records to keep as samples (default 5). */
  samples?: number
  /** Called after every batch. */
  onProgress?: (p: ApplyProgress) => void
  /** How long the apply lock lasts without renewal (default 30 s; renewed every batch). */
  lockLeaseMs?: number
  /**
   * How long a batch waits for records held by another write before apply fails (default 90 s):
   * a run killed inside a batch's transaction leaves it open on the server until the transaction
   * lifetime ends (mongod's `transactionLifetimeLimitSeconds`, 60 s), and the rerun waits it out.
   */
  contentionWaitMs?: number
  /** Called while a batch waits for such records. */
  onWait?: (w: { resource: string; tenant: string | null; waitedMs: number }) => void
}

export interface ApplyProgress {
  resource: string
  migrations: string[]
  tenant: string | null
  tenantIndex: number
  tenants: number
  /** Records of this resource the migrations select (an estimate when they have no filter). */
  total: number
  scanned: number
  migrated: number
  unchanged: number
  skipped: number
  elapsedMs: number
  recordsPerSecond: number
}

export interface ApplyResourceResult {
  resource: string
  migrations: string[]
  tenants: number
  scanned: number
  migrated: number
  unchanged: number
  skipped: number
}

export interface ApplyResult {
  /** Migrations that were pending when the run started. */
  pending: string[]
  /** Marked applied by this run (none for a dry run or a `tenant` run). */
  applied: string[]
  resources: ApplyResourceResult[]
  dryRun: boolean
  /** Dry run: changed records (before/after per migration) and records that would not fit. */
  samples: MigratedRecord[]
  invalid: MigratedRecord[]
  ms: number
}

const SYSTEM: RequestContext = { identity: null, surface: 'system', system: true }

async function selectedTotal (service: ResourceService, filters: Array<Document | undefined>): Promise<number> {
  if (filters.some((f) => f === undefined)) return await service.stored.estimate()
  try {
    return await service.stored.count({ $or: filters }, 5000)
  } catch {
    return await service.stored.estimate()
  }
}

/** Retries `fn` while it answers 409 CONFLICT (records held by other writes), for at most `waitMs`. */
async function patiently<T> (fn: () => Promise<T>, waitMs: number, onWait: (waitedMs: number) => void): Promise<T> {
  const started = Date.now()
  for (;;) {
    try {
      return await fn()
    } catch (err) {
      const waited = Date.now() - started
      if ((err as { statusCode?: number }).statusCode !== 409 || waited >= waitMs) throw err
      onWait(waited)
      await sleep(1000)
    }
  }
}

/** One run's fixed settings and running totals, shared by its resources and tenants. */
interface Run {
  deps: PlanDeps
  opts: ApplyOptions
  store: MigrationStore
  /** This set of pending migrations: checkpoints of another set mean nothing to it. */
  id: string
  /** The apply lock; null for a dry run (which writes nothing, checkpoints included). */
  token: string | null
  dryRun: boolean
  batchSize: number
  rate: number
  leaseMs: number
  started: number
  scanned: number
  result: ApplyResult
}

function keep (run: Run, records: MigratedRecord[] = []): void {
  for (const rec of records) {
    if (rec.issues !== undefined) {
      if (run.result.invalid.length < 20) run.result.invalid.push(rec)
    } else if (run.result.samples.length < (run.opts.samples ?? 5)) run.result.samples.push(rec)
  }
}

/** One tenant's records of one resource, batch by batch from its checkpoint, throttled. */
async function migrateTenant (
  run: Run,
  service: ResourceService,
  r: ApplyResourceResult,
  tenant: string | null,
  index: number,
  total: number,
  steps: MigrationStep[]
): Promise<void> {
  const { opts, store } = run
  const resource = service.model.key
  let { lastId, done } = run.dryRun ? { lastId: null, done: false } : await store.checkpoint(run.id, resource, tenant)
  while (!done) {
    const b = await patiently(
      async () =>
        await service.migrateBatch(SYSTEM, { tenant, after: lastId, limit: run.batchSize, steps, dryRun: run.dryRun }),
      opts.contentionWaitMs ?? 90_000,
      (waitedMs) => opts.onWait?.({ resource, tenant, waitedMs })
    )
    r.scanned += b.scanned
    r.migrated += b.migrated
    r.unchanged += b.unchanged
    r.skipped += b.skipped
    run.scanned += b.scanned
    keep(run, b.records)
    done = b.lastId === null || b.scanned < run.batchSize
    if (b.lastId !== null) lastId = b.lastId
    if (run.token !== null) {
      const [, held] = await Promise.all([
        store.saveCheckpoint(run.id, resource, tenant, lastId, done),
        store.renew(run.token, run.leaseMs)
      ])
      if (!held) throw new Error('the apply lock was taken over by another run; stopping')
    }
    const elapsedMs = Date.now() - run.started
    const { scanned, migrated, unchanged, skipped } = r
    const recordsPerSecond = Math.round((run.scanned / Math.max(elapsedMs, 1)) * 1000)
    opts.onProgress?.({
      resource,
      migrations: r.migrations,
      tenant,
      tenantIndex: index,
      tenants: r.tenants,
      total,
      scanned,
      migrated,
      unchanged,
      skipped,
      elapsedMs,
      recordsPerSecond
    })
    const wait = run.rate > 0 ? run.started + (run.scanned / run.rate) * 1000 - Date.now() : 0
    if (wait > 0) await sleep(wait)
  }
}

/** Every tenant of one resource whose records the pending migrations select. */
async function migrateResource (run: Run, service: ResourceService, steps: MigrationStep[]): Promise<void> {
  const filters = steps.map((s) => s.filter)
  const selection = filters.every((f) => f !== undefined) ? { $or: filters } : {}
  if (!run.dryRun) {
    await service.settleMigrationWrites(SYSTEM)
    await service.stored.ensureTenantOrder()
  }
  const tenants = run.opts.tenant !== undefined ? [run.opts.tenant] : await service.stored.tenants(selection)
  const total = await selectedTotal(service, filters)
  const r: ApplyResourceResult = {
    resource: service.model.key,
    migrations: steps.map((s) => s.name),
    tenants: tenants.length,
    scanned: 0,
    migrated: 0,
    unchanged: 0,
    skipped: 0
  }
  run.result.resources.push(r)
  for (const [i, tenant] of tenants.entries()) await migrateTenant(run, service, r, tenant, i, total, steps)
}

/**
 * `svc schema apply`: the pending migrations, resource by resource and tenant by tenant, in
 * batches through `service.migrateBatch` (guarded writes with their audit rows and markers),
 * throttled, with a checkpoint per tenant, under a lock one run holds at a time. Interrupted at
 * any point (even SIGKILL), a rerun continues where the checkpoints and markers say: each record
 * is migrated once. When every tenant is done the migrations are marked applied.
 */
export async function applyMigrations (deps: PlanDeps, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const started = Date.now()
  const store = new MigrationStore(deps.db)
  const applied = await store.applied()
  const pending = deps.migrations.filter((m) => !applied.has(m.name))
  const dryRun = opts.dryRun === true
  const result: ApplyResult = {
    pending: pending.map((m) => m.name),
    applied: [],
    resources: [],
    dryRun,
    samples: [],
    invalid: [],
    ms: 0
  }
  if (pending.length === 0) return { ...result, ms: Date.now() - started }
  const leaseMs = opts.lockLeaseMs ?? 30_000
  const run: Run = {
    deps,
    opts,
    store,
    id: createHash('sha256')
      .update(pending.map((m) => m.name).join('\n'))
      .digest('hex')
      .slice(0, 16),
    token: dryRun ? null : await store.lock(leaseMs),
    dryRun,
    batchSize: Math.min(1000, Math.max(1, opts.batchSize ?? 500)),
    rate: opts.rate ?? 2000,
    leaseMs,
    started,
    scanned: 0,
    result
  }
  try {
    if (!dryRun) await deps.services.reconcileIntents()
    for (const model of deps.registry.all()) {
      const steps = stepsFor(pending, model.key)
      if (steps.length > 0) await migrateResource(run, deps.services.get(model.path, model.version), steps)
    }
    if (!dryRun && opts.tenant === undefined) {
      for (const m of pending) {
        const rs = result.resources.filter((x) => x.migrations.includes(m.name))
        const sum = (k: 'migrated' | 'unchanged'): number => rs.reduce((n, x) => n + x[k], 0)
        await store.markDone({
          _id: m.name,
          checksum: m.checksum,
          resources: [...m.resources.keys()],
          migrated: sum('migrated'),
          unchanged: sum('unchanged')
        })
        result.applied.push(m.name)
      }
      await store.cleanUp(run.id, result.applied)
    }
  } finally {
    if (run.token !== null) await store.unlock(run.token)
  }
  return { ...result, ms: Date.now() - started }
}
