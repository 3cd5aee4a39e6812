import type { FastifyBaseLogger } from 'fastify'
import { snapshotModels } from '../schema/snapshot.js'
import { isDataBreaking, type ChangeClass } from './changes.js'
import { buildPlan, type PlanDeps, type SchemaPlan } from './plan.js'
import { SnapshotStore } from './snapshot-store.js'

/**
 * What start-up does with a plan that still needs data (pending migrations, stored records that
 * do not fit a change, duplicates of a new unique index): `refuse` to start, `warn` and serve,
 * or `off` (no check, no snapshot written: the CLI's own app).
 */
export type SchemaCheckMode = 'refuse' | 'warn' | 'off'

/** Start-up's check is bounded: a sample per resource and a time budget for all of them. */
const STARTUP_SAMPLE = 1000
const STARTUP_BUDGET_MS = 10_000

export class SchemaCheckError extends Error {
  readonly plan: SchemaPlan
  constructor (plan: SchemaPlan) {
    super(
      `schema changes need data before these schemas can be served:\n${plan.blocking.map((b) => `  - ${b}`).join('\n')}\n` +
        'Run `svc schema plan` for the details and `svc schema apply` for the migrations; SCHEMA_CHECK=warn serves anyway.'
    )
    this.name = 'SchemaCheckError'
    this.plan = plan
  }
}

function counts (plan: SchemaPlan): Record<ChangeClass, number> {
  const out: Record<ChangeClass, number> = { safe: 0, 'needs-data': 0, 'needs-index': 0, 'needs-version': 0 }
  for (const c of plan.changes) out[c.class]++
  return out
}

/**
 * The start-up summary of `svc schema plan` (sampled, bounded): one info line with the counts,
 * one line per change that is not safe, and the decision. When nothing blocks, the snapshot
 * becomes the files; while something does, it keeps the schemas last served without problems,
 * so the plan keeps listing what is unresolved.
 */
export async function startupCheck (
  deps: PlanDeps & { log: FastifyBaseLogger },
  mode: SchemaCheckMode
): Promise<SchemaPlan | null> {
  if (mode === 'off') return null
  const log = deps.log
  const plan = await buildPlan(deps, { sampleSize: STARTUP_SAMPLE, timeBudgetMs: STARTUP_BUDGET_MS })
  log.info(
    {
      snapshot: plan.snapshot?.hash.slice(0, 12) ?? null,
      changes: counts(plan),
      pending: plan.migrations.pending.map((m) => m.name),
      ms: plan.check.ms
    },
    'schema plan at start-up'
  )
  for (const c of plan.changes) {
    if (c.class === 'safe') continue
    const failing =
      c.impact === undefined ? {} : { failing: c.impact.failing, tenants: c.impact.tenants, exact: c.impact.exact }
    // A change whose records already fit (migrated, or none stored) is told, not warned about.
    const level = isDataBreaking(c) || c.kind === 'acl-gap' ? 'warn' : 'info'
    log[level](
      {
        resource: c.resource,
        kind: c.kind,
        class: c.class,
        field: c.field,
        ...failing,
        ...(c.duplicates !== undefined ? { duplicates: c.duplicates } : {})
      },
      c.message
    )
  }
  if (plan.blocking.length > 0) {
    if (mode === 'refuse') throw new SchemaCheckError(plan)
    log.warn(
      { blocking: plan.blocking },
      'schema changes need data: serving anyway (schema check: warn); the snapshot stays at the schemas last served without them'
    )
    return plan
  }
  if (plan.snapshot?.hash !== plan.files.hash) {
    await new SnapshotStore(deps.db).write(snapshotModels(deps.registry.all()))
    log.info({ hash: plan.files.hash.slice(0, 12) }, 'schema snapshot written')
  }
  return plan
}
