import { isDeepStrictEqual } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Collection, Document } from 'mongodb'
import type { Issue } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'
import { SYSTEM_FIELD_SET } from '../schema/model.js'
import { isWritable } from '../schema/typebox.js'
import { toJson } from '../values/convert.js'
import type { DurableContext } from './durable/commit.js'
import { reconcileGroup, settleGroup } from './durable/reconcile.js'
import { runSteps, type MigrationStep, type StepImage } from './migration-steps.js'
import { checkStoredRecord } from './stored-check.js'
import type { StoredRecords } from './stored-records.js'
import type { RecordJson, TombstoneUpdate } from './types.js'

/** Per-record markers "migration M changed record R", written with the record (see migrateBatch). */
export const MIGRATION_MARKS_COLLECTION = 'svc_migration_marks'
export const markId = (migration: string, collection: string, recordId: string): string =>
  `${migration}|${collection}|${recordId}`

/** What a batch needs from its service (see migrate-batch.ts). */
export interface MigrateHost {
  model: ResourceModel
  collection: Collection
  stored: StoredRecords
  /** The service's durable context with only the effects that record migrations (audit). */
  durable: DurableContext
}

/** What the pending migrations make of one stored record: skip it, leave it, write it, or refuse. */
export interface Outcome {
  doc: Document
  images: StepImage[]
  /** The migrations run on it (each gets a marker when it is written). */
  names: string[]
  change?: TombstoneUpdate
  issues?: Issue[]
  /** Every applicable migration was already recorded for it. */
  skipped: boolean
}

/**
 * Writes of a killed `svc schema apply` on this collection, settled now whatever their lease:
 * only apply writes migration markers, and the caller holds the apply lock, so their writer is
 * dead. Without this, records its last batch wrote — which the migrations' filters no longer
 * select — would get their audit rows only from the next reconciliation, after the run ended.
 */
export async function settleMigrationWrites (d: DurableContext, coll: string): Promise<number> {
  const groups = await d.store.coll.distinct('group', {
    state: 'pending',
    coll,
    'effects.collection': MIGRATION_MARKS_COLLECTION
  })
  for (const group of groups) await settleGroup(d.db, d.store, group)
  return groups.length
}

/**
 * A previous run that died between its write and its effects (the intent path) left a pending
 * intent: settle it first (its markers then exist), waiting out the lease of a live writer, so
 * a record is never given to the same migration twice.
 */
async function settleIntents (d: DurableContext, coll: string, ids: unknown[]): Promise<void> {
  const until = Date.now() + d.leaseMs * 2
  for (;;) {
    const held = await d.store.coll
      .find({ state: 'pending', coll, recordId: { $in: ids as never[] } }, { projection: { group: 1, leaseUntil: 1 } })
      .toArray()
    if (held.length === 0) return
    let alive = false
    for (const h of held) {
      if (h.leaseUntil.getTime() < Date.now()) await reconcileGroup(d.db, d.store, h.group, d.leaseMs)
      else alive = true
    }
    if (alive && Date.now() > until) {
      throw new Error(`@svc/core: records of ${coll} are held by writes in flight for over ${d.leaseMs * 2} ms`)
    }
    if (alive) await sleep(50)
  }
}

/** The top-level `$set`/`$unset` that turns the stored record into the migrated one, or null when nothing changes. */
const FILE_ISSUE = 'is written by the file routes, not by migrations'

function changeOf (
  model: ResourceModel,
  doc: Document,
  output: RecordJson,
  set: Record<string, unknown>
): TombstoneUpdate | null | Issue[] {
  const stored = toJson<Record<string, unknown>>(doc)
  const change: TombstoneUpdate = { $set: {}, $unset: {} }
  for (const [k, v] of Object.entries(output)) {
    if (SYSTEM_FIELD_SET.has(k)) continue
    const f = model.fields.find((x) => x.name === k)!
    if (!isWritable(f)) {
      if (f.kind === 'file' && !isDeepStrictEqual(v, stored[k] ?? null)) return [{ field: k, message: FILE_ISSUE }]
      continue
    }
    if (v === null) {
      if (Object.hasOwn(doc, k)) change.$unset![k] = ''
    } else if (!isDeepStrictEqual(toJson(set[k]), stored[k])) change.$set![k] = set[k]
  }
  for (const k of Object.keys(stored)) {
    if (SYSTEM_FIELD_SET.has(k) || Object.hasOwn(output, k)) continue
    if (model.fieldsByPath.get(k)?.kind === 'file') return [{ field: k, message: FILE_ISSUE }]
    change.$unset![k] = ''
  }
  return Object.keys(change.$set!).length + Object.keys(change.$unset!).length === 0 ? null : change
}

/**
 * Each record against the pending migrations: settles interrupted writes on them, skips the
 * migrations already recorded (markers) or not selected (filters), runs the rest in order and
 * checks the result against the files. `prefiltered`: the records were read with the one
 * migration's filter, so the database need not be asked again.
 */
export async function judge (
  h: MigrateHost,
  docs: Document[],
  steps: readonly MigrationStep[],
  prefiltered = false
): Promise<Outcome[]> {
  const ids = docs.map((d) => d._id)
  const coll = h.collection.collectionName
  const wanted = steps.flatMap((s) => ids.map((id) => markId(s.name, coll, String(id))))
  // Intents first: settling one may insert its markers.
  const [found, selected] = await Promise.all([
    settleIntents(h.durable, coll, ids).then(
      async () =>
        await h.durable.db
          .collection<{ _id: string }>(MIGRATION_MARKS_COLLECTION)
          .find({ _id: { $in: wanted } }, { projection: { _id: 1 } })
          .toArray()
    ),
    Promise.all(
      steps.map(async (s) => (s.filter === undefined || prefiltered ? null : await h.stored.matching(ids, s.filter)))
    )
  ])
  const marks = new Set(found.map((m) => m._id))
  const out: Outcome[] = []
  for (const doc of docs) {
    const id = String(doc._id)
    const chosen = steps.filter((_s, i) => selected[i] === null || selected[i]!.has(id))
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
