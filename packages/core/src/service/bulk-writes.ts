import type { Document } from 'mongodb'
import { ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import { toJson } from '../values/convert.js'
import { screenQuery } from './acl.js'
import { buildFilter } from './filter.js'
import { checkInitial, stampInitial } from './state-machine.js'
import { and, stamp } from './tenancy.js'
import type { RecordJson } from './types.js'
import type { WriteHost } from './write-path.js'

/** Most records one bulk create or bulk delete may touch; more is refused, never half done. */
export const MAX_BULK_RECORDS = 1000

/** The index of the failing record in front of a validation error's field (`records.2.name`). */
function atIndex (err: unknown, i: number): unknown {
  const details = (err as { details?: Record<string, unknown> }).details
  if (details !== undefined) {
    details.index = i
    if (typeof details.field === 'string') details.field = details.field === '' ? `records.${i}` : `records.${i}.${details.field}`
  }
  if (err instanceof Error) err.message = `records[${i}]: ${err.message}`
  return err
}

/**
 * Several creates without hooks (GraphQL `<path>CreateMany`, spec hook table): every input is
 * screened, validated and stamped before anything is inserted, so one bad record writes none;
 * then one `insertMany` and one `<path>.created` per record.
 */
export async function createRecords (h: WriteHost, ctx: RequestContext, inputs: unknown[]): Promise<RecordJson[]> {
  if (inputs.length === 0 || inputs.length > MAX_BULK_RECORDS) throw new ValidationError(`records must hold 1 to ${MAX_BULK_RECORDS} records`, { field: 'records' })
  const owner = stamp(ctx)
  const now = new Date()
  const docs: Document[] = inputs.map((input, i) => {
    try {
      const { set } = h.accept(ctx, input, 'create')
      checkInitial(h.model, set)
      stampInitial(h.model, set)
      return { ...set, ...owner, createdAt: now, updatedAt: now }
    } catch (err) {
      throw atIndex(err, i)
    }
  })
  await h.collection.insertMany(docs, { ordered: true })
  for (const doc of docs) {
    const after = toJson<RecordJson>(doc)
    await h.publish({ action: 'created', model: h.model, ctx, recordId: after._id, before: null, after })
  }
  return docs.map((d) => h.present(ctx, d))
}

/**
 * Bulk delete without hooks (GraphQL `<path>RemoveMany`): the caller's filter inside the delete
 * scope (owner, or `acl.delete` roles), each match through the delete strategy (a tombstone with
 * soft delete, a removal otherwise), one `<path>.deleted` bulk event with `numAffected` and each
 * record's images (audit writes a row per record); removed records go to the purge hooks.
 */
export async function deleteMatching (h: WriteHost, ctx: RequestContext, filter: Record<string, unknown>): Promise<{ numAffected: number }> {
  const scoped = h.scopeFilter(ctx, 'delete')
  screenQuery(h.model, ctx, filter, undefined)
  const userFilter = buildFilter(h.model, filter)
  const found = await h.collection.find(and(userFilter, scoped), { projection: { _id: 1 }, limit: MAX_BULK_RECORDS + 1, maxTimeMS: h.maxTimeMS }).toArray()
  if (found.length > MAX_BULK_RECORDS) throw new ValidationError(`the filter matches more than ${MAX_BULK_RECORDS} records: narrow it`, { field: 'filter' })
  const records: Array<{ before: RecordJson, after: RecordJson | null }> = []
  const removed: Document[] = []
  for (const { _id } of found) {
    const res = await h.deleteStrategy({ ctx, model: h.model, collection: h.collection, filter: and({ _id }, scoped), maxTimeMS: h.maxTimeMS })
    if (res == null) continue // deleted by someone else meanwhile
    records.push({ before: toJson<RecordJson>(res.before), after: res.after == null ? null : toJson<RecordJson>(res.after) })
    if (res.after == null) removed.push(res.before)
  }
  await h.publish({ action: 'deleted', model: h.model, ctx, filter: toJson(userFilter), numAffected: records.length, records })
  if (removed.length > 0) await h.purged(removed)
  return { numAffected: records.length }
}
