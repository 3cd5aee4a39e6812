import { ObjectId, type AnyBulkWriteOperation, type Document } from 'mongodb'
import { ValidationError } from '../errors.js'
import { MAX_BULK_RECORDS } from '../values/limits.js'
import type { RequestContext } from '../identity.js'
import { toJson } from '../values/convert.js'
import { screenQuery } from './acl.js'
import { buildFilter } from './filter.js'
import { checkInitial, stampInitial } from './state-machine.js'
import { and, stamp } from './tenancy.js'
import type { RecordJson, TombstoneUpdate, WriteResult } from './types.js'
import { fromStatement } from './durable/statement.js'
import { applyChange, asRead, newWriteId, type WriteHost } from './write-path.js'
import { nextStamp } from './durable/commit.js'
import { stateOf } from './durable/intents.js'

/** The index of the failing record in front of a validation error's field (`records.2.name`). */
function atIndex (err: unknown, i: number): unknown {
  const details = (err as { details?: Record<string, unknown> }).details
  if (details !== undefined) {
    details.index = i
    if (typeof details.field === 'string') {
      details.field = details.field === '' ? `records.${i}` : `records.${i}.${details.field}`
    }
  }
  if (err instanceof Error) err.message = `records[${i}]: ${err.message}`
  return err
}

/**
 * Several creates without hooks (GraphQL `<path>CreateMany`, spec hook table): every input is
 * screened, validated and stamped before anything is inserted, so one bad record writes none;
 * then one `insertMany` (with the durable effects of each record it inserted) and one
 * `<path>.created` per record.
 */
export async function createRecords (h: WriteHost, ctx: RequestContext, inputs: unknown[]): Promise<RecordJson[]> {
  if (inputs.length === 0 || inputs.length > MAX_BULK_RECORDS) {
    throw new ValidationError(`records must hold 1 to ${MAX_BULK_RECORDS} records`, { field: 'records' })
  }
  const owner = stamp(ctx)
  const now = new Date()
  const docs: Document[] = inputs.map((input, i) => {
    try {
      const { set } = h.accept(ctx, input, 'create')
      checkInitial(h.model, set)
      stampInitial(h.model, set)
      return { _id: new ObjectId(), ...set, ...owner, createdAt: now, updatedAt: now }
    } catch (err) {
      throw atIndex(err, i)
    }
  })
  const writeId = newWriteId()
  const results: WriteResult[] = docs.map((doc) => {
    const after = toJson<RecordJson>(doc)
    return { action: 'created', writeId, model: h.model, ctx, recordId: after._id, before: null, after }
  })
  await h.commit(async () => ({
    coll: h.collection,
    targets: docs.map((d) => ({ recordId: d._id as ObjectId, from: null, to: now.getTime() })),
    results,
    ...fromStatement(
      h.collection,
      { insertMany: docs },
      docs.map((d) => String(d._id))
    )
  }))
  for (const r of results) await h.publish(r)
  return docs.map((d) => h.present(ctx, d))
}

/**
 * Bulk delete without hooks (GraphQL `<path>RemoveMany`): the caller's filter inside the delete
 * scope (owner, or `acl.delete` roles), each match through the delete strategy (a tombstone with
 * soft delete, a removal otherwise) in one guarded bulkWrite, one `<path>.deleted` bulk event
 * with `numAffected` and each record's images (audit writes a row per record); removed records
 * go to the purge hooks.
 */
export async function deleteMatching (
  h: WriteHost,
  ctx: RequestContext,
  filter: Record<string, unknown>
): Promise<{ numAffected: number }> {
  const scoped = h.scopeFilter(ctx, 'delete')
  screenQuery(h.model, ctx, filter, undefined)
  const userFilter = buildFilter(h.model, filter)
  const find = async (): Promise<Document[]> => {
    const found = await h.collection
      .find(and(userFilter, scoped), { limit: MAX_BULK_RECORDS + 1, maxTimeMS: h.maxTimeMS })
      .toArray()
    if (found.length > MAX_BULK_RECORDS) {
      throw new ValidationError(`the filter matches more than ${MAX_BULK_RECORDS} records: narrow it`, {
        field: 'filter'
      })
    }
    return found
  }
  let docs: Document[] = []
  let records: Array<{ before: RecordJson; after: RecordJson | null }> = []
  let result: WriteResult | undefined
  const { changed } = await h.commit(async () => {
    docs = await find()
    if (docs.length === 0) return null
    const updatedAt = nextStamp(Math.max(...docs.map((d) => stateOf(d) ?? -1)))
    const changes = docs.map((d): TombstoneUpdate | null => {
      const t = h.deleteStrategy({ ctx, model: h.model, record: d })
      return t === null ? null : { ...t, $set: { ...t.$set, updatedAt } }
    })
    records = docs.map((d, i) => ({
      before: toJson<RecordJson>(d),
      after: changes[i] === null ? null : toJson<RecordJson>(applyChange(d, changes[i]!))
    }))
    const targets = docs.map((d, i) => ({
      recordId: d._id as ObjectId,
      from: stateOf(d),
      to: changes[i] === null ? null : updatedAt.getTime()
    }))
    result = {
      action: 'deleted',
      writeId: newWriteId(),
      model: h.model,
      ctx,
      filter: toJson(userFilter),
      numAffected: docs.length,
      records
    }
    const ops: AnyBulkWriteOperation[] = docs.map((d, i) =>
      changes[i] === null
        ? { deleteOne: { filter: asRead(d) } }
        : { updateOne: { filter: asRead(d), update: changes[i]! } }
    )
    return {
      coll: h.collection,
      targets,
      results: [result],
      write: async (session) => {
        await h.collection.bulkWrite(ops, { ordered: false, session })
        const now = new Map(
          (
            await h.collection
              .find({ _id: { $in: docs.map((d) => d._id) } }, { projection: { updatedAt: 1 }, session })
              .toArray()
          ).map((d) => [String(d._id), d])
        )
        return targets
          .filter((t) => stateOf(now.get(t.recordId.toHexString())) === t.to)
          .map((t) => t.recordId.toHexString())
      }
    }
  })
  if (result === undefined) {
    await h.publish({
      action: 'deleted',
      writeId: newWriteId(),
      model: h.model,
      ctx,
      filter: toJson(userFilter),
      numAffected: 0,
      records: []
    })
    return { numAffected: 0 }
  }
  const hit = new Set(changed)
  result.records = records.filter((r) => hit.has(r.before._id))
  result.numAffected = result.records.length
  await h.publish(result)
  const removed = docs.filter(
    (d) => hit.has(String(d._id)) && result!.records!.some((r) => r.before._id === String(d._id) && r.after === null)
  )
  if (removed.length > 0) await h.purged(removed, ctx)
  return { numAffected: result.numAffected }
}
