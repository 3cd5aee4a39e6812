import type { Db } from 'mongodb'
import type { Registry } from '../schema/registry.js'
import { snapshotModels } from '../schema/snapshot.js'
import type { ResourceServices } from '../service/index.js'
import type { MigrationStep } from '../service/migration-steps.js'
import { estimateCollection } from '../service/stored-records.js'
import { isDataBreaking, type SchemaChange } from './changes.js'
import { aclGaps, diffSnapshots, previousCollection } from './diff.js'
import { measureResource, type MigrationFailure } from './impact.js'
import { MigrationStore } from './migration-store.js'
import type { Migration } from './migrations.js'
import { SnapshotStore, type StoredSnapshot } from './snapshot-store.js'

export interface PlanOptions {
  /** Read every record of each checked resource (bounded by `timeBudgetMs`) instead of a sample. */
  exact?: boolean
  /** Records sampled per resource (default 5000). */
  sampleSize?: number
  /** Time bound of the data checks (default 60 s); resources not reached are listed in `unchecked`. */
  timeBudgetMs?: number
  /** `maxTimeMS` of each database query of the plan (default 30 s). */
  queryTimeoutMs?: number
}

export interface SchemaPlan {
  /** The snapshot compared with; null before the first start that wrote one. */
  snapshot: { hash: string; servedAt: string } | null
  files: { hash: string }
  changes: SchemaChange[]
  migrations: {
    applied: string[]
    pending: Array<{ name: string; description?: string; resources: string[] }>
    /** Applied migrations whose file changed since (they are not run again). */
    edited: string[]
  }
  /** Migrations that threw on records the plan read. */
  migrationFailures: MigrationFailure[]
  check: { exact: boolean; sampleSize: number; ms: number; partial: boolean; unchecked: string[] }
  /** Why a production start-up refuses these files now (empty: it starts). */
  blocking: string[]
}

export interface PlanDeps {
  db: Db
  registry: Registry
  services: ResourceServices
  migrations: Migration[]
}

/** Steps of the pending migrations for one resource, in order. */
export function stepsFor (pending: Migration[], key: string): MigrationStep[] {
  return pending
    .filter((m) => m.resources.has(key))
    .map((m) => {
      const r = m.resources.get(key)!
      return { name: m.name, up: r.up, ...(r.filter !== undefined ? { filter: r.filter } : {}) }
    })
}

function blockingReasons (plan: Omit<SchemaPlan, 'blocking'>): string[] {
  const out: string[] = []
  if (plan.migrations.pending.length > 0) {
    out.push(`pending migrations: ${plan.migrations.pending.map((m) => m.name).join(', ')} (run svc schema apply)`)
  }
  for (const c of plan.changes) {
    if (c.kind === 'acl-gap') out.push(`${c.resource}: ${c.message}`)
    if (!isDataBreaking(c) || c.kind === 'stored-data') continue
    const i = c.impact
    const what =
      c.duplicates !== undefined
        ? `${c.duplicates.records} records in ${c.duplicates.groups} duplicate groups`
        : c.stranded !== undefined
          ? `${c.stranded} records left in the previous collection`
          : i === undefined
            ? 'stored records not checked'
            : `${i.exact ? '' : '~'}${i.failing} records in ${i.exact ? '' : '≥'}${i.tenants} tenants do not fit`
    out.push(`${c.resource}: ${c.message} — ${what}`)
  }
  for (const f of plan.migrationFailures.slice(0, 3)) out.push(f.message)
  return out
}

/**
 * `svc schema plan`: the files against the snapshot the database was last served with — every
 * change classified, the stored records each one leaves not fitting (sampled, or exact), existing
 * duplicates of new unique indexes, the pending migrations and what they fix — and whether a
 * production start-up would refuse it. Read-only.
 */
export async function buildPlan (deps: PlanDeps, opts: PlanOptions = {}): Promise<SchemaPlan> {
  const started = Date.now()
  const exact = opts.exact === true
  const sampleSize = opts.sampleSize ?? 5000
  const deadline = started + (opts.timeBudgetMs ?? 60_000)
  const maxTimeMS = opts.queryTimeoutMs ?? 30_000
  const files = snapshotModels(deps.registry.all())
  const stored: StoredSnapshot | null = await new SnapshotStore(deps.db).read()
  const applied = await new MigrationStore(deps.db).applied()
  const pending = deps.migrations.filter((m) => !applied.has(m.name))
  const changes = [...(stored === null ? [] : diffSnapshots(stored, files)), ...aclGaps(files)]
  const touched = new Set<string>(stored === null ? deps.registry.all().map((m) => m.key) : [])
  for (const c of changes) touched.add(c.resource)
  for (const m of pending) for (const key of m.resources.keys()) touched.add(key)

  const failures: MigrationFailure[] = []
  const unchecked: string[] = []
  let partial = false
  for (const model of deps.registry.all()) {
    if (!touched.has(model.key)) continue
    if (Date.now() >= deadline) {
      unchecked.push(model.key)
      continue
    }
    const service = deps.services.get(model.path, model.version)
    const mine = changes.filter((c) => c.resource === model.key)
    const r = await measureResource(service, mine, stepsFor(pending, model.key), {
      exact,
      sampleSize,
      deadline,
      maxTimeMS
    })
    changes.push(...r.extra)
    failures.push(...r.failures)
    partial ||= r.partial
    for (const c of mine) {
      if (c.kind === 'index-added' && (await service.stored.estimate()) > 0) {
        try {
          c.duplicates = await service.stored.duplicates(
            c.index!,
            Math.max(1, Math.min(maxTimeMS, deadline - Date.now()))
          )
        } catch (err) {
          if ((err as { code?: number }).code !== 50) throw err
          c.duplicates = { groups: 0, records: 0, tenants: 0, timedOut: true }
        }
      }
      if (c.kind === 'soft-delete-off') {
        const t = await service.stored.tombstones(maxTimeMS)
        c.impact = {
          total: await service.stored.estimate(),
          checked: t.records,
          exact: true,
          failing: t.records,
          tenants: t.tenants
        }
      }
    }
  }
  for (const c of changes) {
    if (c.kind !== 'collection-changed') continue
    c.stranded = await estimateCollection(deps.db, previousCollection(stored!, c)!)
  }
  const plan: Omit<SchemaPlan, 'blocking'> = {
    snapshot: stored === null ? null : { hash: stored.hash, servedAt: stored.servedAt.toISOString() },
    files: { hash: files.hash },
    changes,
    migrations: {
      applied: [...applied.keys()].sort(),
      pending: pending.map((m) => ({
        name: m.name,
        ...(m.description !== undefined ? { description: m.description } : {}),
        resources: [...m.resources.keys()]
      })),
      edited: deps.migrations
        .filter((m) => applied.has(m.name) && applied.get(m.name)!.checksum !== m.checksum)
        .map((m) => m.name)
    },
    migrationFailures: failures,
    check: { exact, sampleSize, ms: Date.now() - started, partial, unchecked }
  }
  return { ...plan, blocking: blockingReasons(plan) }
}
