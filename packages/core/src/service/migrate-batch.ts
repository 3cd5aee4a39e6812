import { isDeepStrictEqual } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ClientSession, Collection, Document } from 'mongodb'
import type { Issue } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { SYSTEM_FIELD_SET } from '../schema/model.js'
import { isWritable } from '../schema/typebox.js'
import { parseId, toJson } from '../values/convert.js'
import { commitDurably, nextStamp, type DurableContext, type PlannedWrite } from './durable/commit.js'
import { stateOf } from './durable/intents.js'
import { reconcileGroup } from './durable/reconcile.js'
import type { NamedEffect } from './durable/types.js'
import { runSteps, type MigrationStep, type StepImage } from './migration-steps.js'
import { checkStoredRecord } from './stored-check.js'
import type { StoredRecords } from './stored-records.js'
import type { RecordJson, TombstoneUpdate, WriteResult } from './types.js'
import { applyChange, asRead, newWriteId } from './write-path.js'

/** Per-record markers "migration M changed record R", written with the record (see migrateBatch). */
export const MIGRATION_MARKS_COLLECTION = 'svc_migration_marks'
export const markId = (migration: string, collection: string, recordId: string): string => `${migration}|${collection}|${recordId}`

export interface MigrateHost {
  model: ResourceModel
  collection: Collection
  stored: StoredRecords
  /** The service's durable context with only the effects that record migrations (audit). */
  durable: DurableContext
}

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

export interface MigratedRecord { recordId: string, userId: string | null, images: StepImage[], issues?: Issue[] }

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
    super(`${migrations.join(' + ')} left record ${recordId} (tenant ${String(userId)}) not fitting the schema: ${first.field} ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`)
    this.name = 'MigrationInvalidError'
    this.recordId = recordId
    this.userId = userId
    this.issues = issues
  }
}

interface Outcome { doc: Document, images: StepImage[], names: string[], change?: TombstoneUpdate, issues?: Issue[], skipped: boolean }

/**
 * A previous run that died between its write and its effects (the intent path) left a pending
 * intent: settle it first (its markers then exist), waiting out the lease of a live writer, so
 * a record is never given to the same migration twice.
 */
async function settleIntents (d: DurableContext, coll: string, ids: unknown[]): Promise<void> {
  const until = Date.now() + d.leaseMs * 2
  for (;;) {
    const held = await d.store.coll.find({ state: 'pending', coll, recordId: { $in: ids as never[] } }, { projection: { group: 1, leaseUntil: 1 } }).toArray()
    if (held.length === 0) return
    let alive = false
    for (const h of held) {
      if (h.leaseUntil.getTime() < Date.now()) await reconcileGroup(d.db, d.store, h.group, d.leaseMs)
      else alive = true
    }
    if (alive && Date.now() > until) throw new Error(`@svc/core: records of ${coll} are held by writes in flight for over ${d.leaseMs * 2} ms`)
    if (alive) await sleep(50)
  }
}

/** The top-level `$set`/`$unset` that turns the stored record into the migrated one, or null when nothing changes. */
function changeOf (model: ResourceModel, doc: Document, output: RecordJson, set: Record<string, unknown>): TombstoneUpdate | null | Issue[] {
  const stored = toJson<Record<string, unknown>>(doc)
  const change: TombstoneUpdate = { $set: {}, $unset: {} }
  for (const [k, v] of Object.entries(output)) {
    if (SYSTEM_FIELD_SET.has(k)) continue
    const f = model.fields.find((x) => x.name === k)!
    if (!isWritable(f)) {
      if (f.kind === 'file' && !isDeepStrictEqual(v, stored[k] ?? null)) return [{ field: k, message: 'is written by the file routes, not by migrations' }]
      continue
    }
    if (v === null) {
      if (Object.hasOwn(doc, k)) change.$unset![k] = ''
    } else if (!isDeepStrictEqual(toJson(set[k]), stored[k])) change.$set![k] = set[k]
  }
  for (const k of Object.keys(stored)) {
    if (SYSTEM_FIELD_SET.has(k) || Object.hasOwn(output, k)) continue
    if (model.fieldsByPath.get(k)?.kind === 'file') return [{ field: k, message: 'is written by the file routes, not by migrations' }]
    change.$unset![k] = ''
  }
  return Object.keys(change.$set!).length + Object.keys(change.$unset!).length === 0 ? null : change
}

/** `prefiltered`: the docs were read with the one step's filter, so the database need not be asked again. */
async function judge (h: MigrateHost, docs: Document[], steps: readonly MigrationStep[], prefiltered = false): Promise<Outcome[]> {
  const ids = docs.map((d) => d._id)
  const coll = h.collection.collectionName
  await settleIntents(h.durable, coll, ids)
  const marks = new Set((await h.durable.db.collection(MIGRATION_MARKS_COLLECTION)
    .find({ _id: { $in: steps.flatMap((s) => ids.map((id) => markId(s.name, coll, String(id)))) as never[] } }, { projection: { _id: 1 } }).toArray()).map((m) => String(m._id)))
  const selected = await Promise.all(steps.map(async (s) => s.filter === undefined || prefiltered ? null : await h.stored.matching(ids, s.filter)))
  const out: Outcome[] = []
  for (const doc of docs) {
    const id = String(doc._id)
    const chosen = steps.filter((s, i) => (selected[i] === null || selected[i]!.has(id)))
    const open = chosen.filter((s) => !marks.has(markId(s.name, coll, id)))
    if (open.length === 0) {
      out.push({ doc, images: [], names: [], skipped: chosen.length > 0 })
      continue
    }
    const { output, images } = await runSteps(open, toJson<RecordJson>(doc))
    const names = open.map((s) => s.name)
    if (images.length === 0) {
      out.push({ doc, images, names, skipped: false })
      continue
    }
    const { issues, prepared } = checkStoredRecord(h.model, output)
    const change = issues.length > 0 ? issues : changeOf(h.model, doc, output, prepared.set)
    if (Array.isArray(change)) out.push({ doc, images, names, issues: change, skipped: false })
    else out.push({ doc, images, names, skipped: false, ...(change !== null ? { change } : {}) })
  }
  return out
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
export async function migrateBatch (h: MigrateHost, ctx: RequestContext, opts: MigrateBatchOptions): Promise<MigrateBatchResult> {
  const after = opts.after === null ? null : parseId(opts.after)
  // Records without a string tenant (written outside svc) form the `null` tenant.
  const query: Document = { userId: opts.tenant ?? { $not: { $type: 'string' } }, ...(after !== null ? { _id: { $gt: after } } : {}) }
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
    result.records = outcomes.filter((o) => o.images.length > 0 && (o.change !== undefined || o.issues !== undefined))
      .map((o) => ({ recordId: String(o.doc._id), userId: o.doc.userId ?? null, images: o.images, ...(o.issues !== undefined ? { issues: o.issues } : {}) }))
    return result
  }
  let reread = false
  let skippedAtStart: number | null = null
  for (;;) {
    let outcomes: Outcome[] = []
    const { changed } = await commitDurably(migrationContext(h.durable, () => outcomes), async () => {
      const docs = reread ? await h.collection.find({ _id: { $in: ids } }, { sort: { _id: 1 } }).toArray() : first
      outcomes = await judge(h, docs, opts.steps, prefiltered && !reread)
      reread = true
      skippedAtStart ??= outcomes.filter((o) => o.skipped).length
      const bad = outcomes.find((o) => o.issues !== undefined)
      if (bad !== undefined) throw new MigrationInvalidError(bad.names, String(bad.doc._id), bad.doc.userId ?? null, bad.issues!)
      return plan(h, ctx, outcomes.filter((o) => o.change !== undefined))
    })
    if (changed.length === 0) {
      count(result, outcomes)
      result.skipped = skippedAtStart ?? 0
      return result
    }
    result.migrated += changed.length
  }
}

function count (result: MigrateBatchResult, outcomes: Outcome[]): void {
  result.unchanged = outcomes.filter((o) => !o.skipped && o.names.length > 0 && o.change === undefined && o.issues === undefined).length
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
      return o.names.map((name) => ({ collection: MIGRATION_MARKS_COLLECTION, document: { _id: markId(name, r.model.collection, r.recordId!), migration: name, at } }))
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
    w.images.forEach((img, i) => results.push({
      action: 'updated', operation: 'migrate', migration: img.migration, writeId, model: h.model, ctx,
      recordId: final._id, before: img.before, after: i === w.images.length - 1 ? final : img.after
    }))
    return { updateOne: { filter: asRead(w.doc), update: change } }
  })
  const ids = writes.map((w) => w.doc._id)
  return {
    coll: h.collection,
    targets: writes.map((w) => ({ recordId: w.doc._id, from: stateOf(w.doc), to: updatedAt.getTime() })),
    results,
    write: async (session?: ClientSession) => {
      // In a transaction one record that moved makes the whole batch plan again (all or nothing).
      const res = await h.collection.bulkWrite(ops, { ordered: session !== undefined, ...(session !== undefined ? { session } : {}) })
      if (res.matchedCount === ops.length) return ids.map(String)
      if (session !== undefined) return []
      const landed = await h.collection.find({ _id: { $in: ids }, updatedAt }, { projection: { _id: 1 } }).toArray()
      return landed.map((d) => String(d._id))
    }
  }
}
