import type { Document } from 'mongodb'
import type { ResourceService } from '../service/resource-service.js'
import { checkStoredRecord, issuePath } from '../service/stored-check.js'
import { MigrationStepError, runSteps, type MigrationStep } from '../service/migration-steps.js'
import { toJson } from '../values/convert.js'
import type { RecordJson } from '../service/types.js'
import type { ChangeImpact, SchemaChange } from './changes.js'

export interface MeasureOptions {
  /** Read every record (until `deadline`) instead of a sample. */
  exact: boolean
  sampleSize: number
  /** Ms since the epoch: an exact scan stops there (`partial`). */
  deadline: number
  maxTimeMS: number
}

/** A migration that threw (or answered no record) on a record read by the plan. */
export interface MigrationFailure {
  migration: string
  recordId: string
  message: string
}

interface Tally {
  failing: number
  tenants: Set<string>
  afterFailing: number
  afterTenants: Set<string>
  example?: ChangeImpact['example']
}

const tally = (): Tally => ({ failing: 0, tenants: new Set(), afterFailing: 0, afterTenants: new Set() })
const covers = (path: string, p: string): boolean => p === path || p.startsWith(`${path}.`)

/** Wilson score interval (95 %) of k failing out of n read, scaled to `total`. */
function range (k: number, n: number, total: number): [number, number] {
  const z = 1.96
  const p = k / n
  const d = 1 + (z * z) / n
  const mid = (p + (z * z) / (2 * n)) / d
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d
  return [Math.max(0, Math.floor((mid - half) * total)), Math.min(total, Math.ceil((mid + half) * total))]
}

/**
 * How many stored records of one resource fail each of its changes (and fit once the pending
 * migrations ran, in memory): every record read goes through the service's own validation
 * (`checkStoredRecord`), and each problem counts toward the change whose field path covers it.
 * Problems no change explains become `stored-data` changes. Reads a `$sample` (extrapolated,
 * with a 95 % interval) or, with `exact`, every record in batches until the deadline.
 */
export async function measureResource (
  service: ResourceService,
  changes: SchemaChange[],
  steps: MigrationStep[],
  opts: MeasureOptions
): Promise<{ extra: SchemaChange[]; failures: MigrationFailure[]; partial: boolean }> {
  const model = service.model
  const total = await service.stored.estimate()
  const measured = changes.filter((c) => c.paths !== undefined)
  const tallies = new Map<SchemaChange, Tally>(measured.map((c) => [c, tally()]))
  const unexplained = new Map<string, Tally>()
  const failures: MigrationFailure[] = []
  let read = 0

  const judge = async (docs: Document[]): Promise<void> => {
    const selected = await Promise.all(
      steps.map(async (s) =>
        s.filter === undefined
          ? null
          : await service.stored.matching(
            docs.map((d) => d._id),
            s.filter
          )
      )
    )
    for (const doc of docs) {
      const id = String(doc._id)
      const userId = typeof doc.userId === 'string' ? doc.userId : '(none)'
      const now = new Map<string, string>()
      for (const i of checkStoredRecord(model, doc).issues) {
        if (!now.has(issuePath(i.field))) now.set(issuePath(i.field), `${i.field} ${i.message}`)
      }
      let after = new Set(now.keys())
      const mine = steps.filter((_s, i) => selected[i] === null || selected[i]!.has(id))
      if (mine.length > 0) {
        try {
          const { output } = await runSteps(mine, toJson<RecordJson>(doc))
          after = new Set(checkStoredRecord(model, output).issues.map((i) => issuePath(i.field)))
        } catch (err) {
          if (!(err instanceof MigrationStepError)) throw err
          if (failures.length < 20) failures.push({ migration: err.migration, recordId: id, message: err.message })
        }
      }
      const fails = (paths: Iterable<string>, c: SchemaChange): boolean =>
        [...paths].some((p) => c.paths!.some((cp) => covers(cp, p)))
      for (const [c, t] of tallies) {
        if (fails(now.keys(), c)) {
          t.failing++
          t.tenants.add(userId)
          t.example ??= {
            recordId: id,
            userId: doc.userId ?? null,
            message: [...now].find(([p]) => c.paths!.some((cp) => covers(cp, p)))![1]
          }
        }
        if (fails(after, c)) {
          t.afterFailing++
          t.afterTenants.add(userId)
        }
      }
      for (const [p, message] of now) {
        if (measured.some((c) => c.paths!.some((cp) => covers(cp, p)))) continue
        const t = unexplained.get(p) ?? unexplained.set(p, tally()).get(p)!
        t.failing++
        t.tenants.add(userId)
        t.example ??= { recordId: id, userId: doc.userId ?? null, message }
        if (after.has(p)) {
          t.afterFailing++
          t.afterTenants.add(userId)
        }
      }
    }
    read += docs.length
  }

  let partial = false
  let exact = true
  if (total > 0) {
    if (opts.exact) {
      partial = (await service.stored.scan(judge, { batchSize: 1000, deadline: opts.deadline })).partial
    } else {
      const docs = await service.stored.sample(opts.sampleSize, total, opts.maxTimeMS)
      exact = docs.length >= total
      await judge(docs)
    }
  }
  const impact = (t: Tally): ChangeImpact => {
    const scaled = (k: number): number => (read === 0 || exact ? k : Math.round((k / read) * total))
    const out: ChangeImpact = {
      total,
      checked: read,
      exact: exact && !partial,
      failing: scaled(t.failing),
      tenants: t.tenants.size
    }
    if (!exact && read > 0) out.failingRange = range(t.failing, read, total)
    if (steps.length > 0) out.afterMigrations = { failing: scaled(t.afterFailing), tenants: t.afterTenants.size }
    if (t.example !== undefined) out.example = t.example
    if (partial) out.partial = true
    return out
  }
  for (const [c, t] of tallies) {
    c.impact = impact(t)
    if (c.class === 'safe' && t.failing > 0) {
      c.class = 'needs-data'
      c.message += ' — but stored values under this name do not fit it'
    }
  }
  const extra: SchemaChange[] = [...unexplained].map(([p, t]) => ({
    resource: model.key,
    collection: model.collection,
    kind: 'stored-data',
    class: 'needs-data',
    needsVersion: false,
    field: p,
    message: `stored records do not fit ${p} (no schema change explains it)`,
    paths: [p],
    impact: impact(t)
  }))
  return { extra, failures, partial }
}
