import type { ClientSession, Document } from 'mongodb'
import type { Issue } from '../errors.js'
import type { RequestContext } from '../identity.js'
import { parseId, toJson } from '../values/convert.js'
import { commitDurably, nextStamp, type DurableContext, type PlannedWrite } from './durable/commit.js'
import { stateOf } from './durable/intents.js'
import type { NamedEffect } from './durable/types.js'
import { judge, markId, MIGRATION_MARKS_COLLECTION, type MigrateHost, type Outcome } from './migrate-judge.js'
import type { MigrationStep, StepImage } from './migration-steps.js'
import type { RecordJson, TombstoneUpdate, WriteResult } from './types.js'
import { applyChange, asRead, newWriteId } from './write-path.js'

export { MIGRATION_MARKS_COLLECTION, markId, type MigrateHost } from './migrate-judge.js'

export interface MigrateBatchOptions {
  /** The tenant (`userId`) whose records this batch reads; null for records without one. */
  tenant: string | null
  /** Continue after this record id (24 hex), in `_id` order; null from the start. */
  after: string | null
  limit: number
  /** The pending migrations of this resource, in order. */
  steps: readonly MigrationStep[]
  /** Compute everything, write nothing; invalid results are reported instead of thrown. */
  dryRun?: boolean
}

export interface MigratedRecord {
  recordId: string
  userId: string | null
  images: StepImage[]
  issues?: Issue[]
}

export interface MigrateBatchResult {
  /** Records read in this batch. */
  scanned: number
  /** Records written (dry run: that would be). */
  migrated: number
  /** Records the migrations left as they were. */
  unchanged: number
  /** Records every applicable migration had already changed (an earlier, interrupted run). */
  skipped: number
  /** The batch's last record id: where the next batch continues; null when the tenant had none left. */
  lastId: string | null
  /** Dry run: each record that would change (or is invalid), with its images. */
  records?: MigratedRecord[]
}

/** A migrated record does not fit the schema files: nothing of its batch was written. */
export class MigrationInvalidError extends Error {
  readonly recordId: string
  readonly userId: string | null
  readonly issues: Issue[]
  constructor (migrations: string[], recordId: string, userId: string | null, issues: Issue[]) {
    const first = issues[0]
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''
    super(
      `${migrations.join(' + ')} left record ${recordId} (tenant ${String(userId)}) not fitting the schema: ${first.field} ${first.message}${more}`
    )
    this.name = 'MigrationInvalidError'
    this.recordId = recordId
    this.userId = userId
    this.issues = issues
  }
}

/**
 * One batch of `svc schema apply` for one tenant (`service.migrateBatch`): the next `limit`
 * records after `after` in `_id` order run through the pending migrations not yet recorded for
 * them, the result must fit the schema files (else nothing of the batch is written and
 * MigrationInvalidError names the record), and each changed record is written guarded on the
 * state it was read in, together with — in one transaction, or through write-ahead intents — its
 * audit rows (`operation: 'migrate'`, one per migration that changed it) and one marker per
 * migration run on it. The markers make a rerun after a crash skip what already landed: each
 * record is migrated exactly once. No hooks run and no event is published.
 */
export async function migrateBatch (
  h: MigrateHost,
  ctx: RequestContext,
  opts: MigrateBatchOptions
): Promise<MigrateBatchResult> {
  const after = opts.after === null ? null : parseId(opts.after)
  // Records without a string tenant (written outside svc) form the `null` tenant.
  const query: Document = {
    userId: opts.tenant ?? { $not: { $type: 'string' } },
    ...(after !== null ? { _id: { $gt: after } } : {})
  }
  const filters = opts.steps.map((s) => s.filter)
  if (filters.every((f) => f !== undefined)) query.$or = filters
  const first = await h.collection.find(query, { sort: { _id: 1 }, limit: opts.limit }).toArray()
  const lastId = first.length === 0 ? null : String(first[first.length - 1]._id)
  const result: MigrateBatchResult = { scanned: first.length, migrated: 0, unchanged: 0, skipped: 0, lastId }
  if (first.length === 0) return result
  const ids = first.map((d) => d._id)
  const prefiltered = opts.steps.length === 1 && query.$or !== undefined
  if (opts.dryRun === true) {
    const outcomes = await judge(h, first, opts.steps, prefiltered)
    count(result, outcomes)
    result.migrated = outcomes.filter((o) => o.change !== undefined || o.issues !== undefined).length
    result.records = outcomes
      .filter((o) => o.images.length > 0 && (o.change !== undefined || o.issues !== undefined))
      .map((o) => ({
        recordId: String(o.doc._id),
        userId: o.doc.userId ?? null,
        images: o.images,
        ...(o.issues !== undefined ? { issues: o.issues } : {})
      }))
    return result
  }
  let reread = false
  let skippedAtStart: number | null = null
  for (;;) {
    let outcomes: Outcome[] = []
    const { changed } = await commitDurably(
      migrationContext(h.durable, () => outcomes),
      async () => {
        const docs = reread ? await h.collection.find({ _id: { $in: ids } }, { sort: { _id: 1 } }).toArray() : first
        outcomes = await judge(h, docs, opts.steps, prefiltered && !reread)
        reread = true
        skippedAtStart ??= outcomes.filter((o) => o.skipped).length
        const bad = outcomes.find((o) => o.issues !== undefined)
        if (bad !== undefined) {
          throw new MigrationInvalidError(bad.names, String(bad.doc._id), bad.doc.userId ?? null, bad.issues!)
        }
        return plan(
          h,
          ctx,
          outcomes.filter((o) => o.change !== undefined)
        )
      }
    )
    if (changed.length === 0) {
      count(result, outcomes)
      result.skipped = skippedAtStart ?? 0
      return result
    }
    result.migrated += changed.length
  }
}

function count (result: MigrateBatchResult, outcomes: Outcome[]): void {
  result.unchanged = outcomes.filter(
    (o) => !o.skipped && o.names.length > 0 && o.change === undefined && o.issues === undefined
  ).length
  result.skipped = outcomes.filter((o) => o.skipped).length
}

/** The service's migration effects plus the markers: each written record's markers ride on its last result. */
function migrationContext (d: DurableContext, outcomes: () => Outcome[]): DurableContext {
  let indexed: Outcome[] | null = null
  let byId = new Map<string, Outcome>()
  const marks: NamedEffect = {
    name: 'svc-migration-marks',
    build: (r) => {
      if (r.recordId === undefined || r.migration === undefined) return []
      if (indexed !== outcomes()) {
        indexed = outcomes()
        byId = new Map(indexed.map((o) => [String(o.doc._id), o]))
      }
      const o = byId.get(r.recordId)
      if (o === undefined || o.images[o.images.length - 1].migration !== r.migration) return []
      const at = new Date()
      return o.names.map((name) => ({
        collection: MIGRATION_MARKS_COLLECTION,
        document: { _id: markId(name, r.model.collection, r.recordId!), migration: name, at }
      }))
    }
  }
  return { ...d, effects: [...d.effects, marks] }
}

function plan (h: MigrateHost, ctx: RequestContext, writes: Outcome[]): PlannedWrite | null {
  if (writes.length === 0) return null
  const updatedAt = nextStamp(Math.max(...writes.map((w) => stateOf(w.doc) ?? -1)))
  const results: WriteResult[] = []
  const ops = writes.map((w) => {
    const change: TombstoneUpdate = { $set: { ...w.change!.$set, updatedAt } }
    if (Object.keys(w.change!.$unset!).length > 0) change.$unset = w.change!.$unset
    const writeId = newWriteId()
    const final = toJson<RecordJson>(applyChange(w.doc, change))
    w.images.forEach((img, i) =>
      results.push({
        action: 'updated',
        operation: 'migrate',
        migration: img.migration,
        writeId,
        model: h.model,
        ctx,
        recordId: final._id,
        before: img.before,
        after: i === w.images.length - 1 ? final : img.after
      })
    )
    return { updateOne: { filter: asRead(w.doc), update: change } }
  })
  const ids = writes.map((w) => w.doc._id)
  return {
    coll: h.collection,
    targets: writes.map((w) => ({ recordId: w.doc._id, from: stateOf(w.doc), to: updatedAt.getTime() })),
    results,
    write: async (session?: ClientSession) => {
      // In a transaction one record that moved makes the whole batch plan again (all or nothing).
      const res = await h.collection.bulkWrite(
        ops,
        session !== undefined ? { ordered: true, session } : { ordered: false }
      )
      if (res.matchedCount === ops.length) return ids.map(String)
      if (session !== undefined) return []
      const landed = await h.collection.find({ _id: { $in: ids }, updatedAt }, { projection: { _id: 1 } }).toArray()
      return landed.map((d) => String(d._id))
    }
  }
}
