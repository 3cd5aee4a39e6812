import type { Collection, Document, IndexSpecification, ObjectId } from 'mongodb'
import { ForbiddenError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { fileFieldOf } from './file-field.js'
import { and } from './tenancy.js'

/**
 * The few record operations plugins need beyond the CRUD surface (soft delete's retention sweep
 * and index, the blob route, the files reconciler). The collection stays inside the service:
 * each need is a named operation with its own rule, so no plugin holds a record collection.
 */
export interface PluginOpsHost {
  model: ResourceModel
  collection: Collection
  maxTimeMS: number
  scopeFilter: (ctx: RequestContext, op: 'get') => Document
  purged: (docs: Document[], ctx: RequestContext) => Promise<void>
}

function systemOnly (ctx: RequestContext, what: string): void {
  if (ctx.system !== true) throw new ForbiddenError(`${what} is a trusted internal operation (system: true)`)
}

/**
 * Removes tombstones (`deletedAt` before `cutoff`) in batches and hands them to the purge hooks.
 * Each row goes with its own `findOneAndDelete` re-checking `deletedAt`, so with several replicas
 * sweeping at once every tombstone is purged by exactly one, and a record restored meanwhile stays.
 */
export async function purgeDeletedBefore (
  h: PluginOpsHost,
  ctx: RequestContext,
  cutoff: Date,
  batchSize: number
): Promise<number> {
  systemOnly(ctx, 'purging tombstones')
  const expired = { deletedAt: { $lt: cutoff } }
  let total = 0
  for (;;) {
    const candidates = await h.collection.find(expired, { projection: { _id: 1 }, limit: batchSize }).toArray()
    const purged: Document[] = []
    for (const c of candidates) {
      const doc = await h.collection.findOneAndDelete({ _id: c._id, ...expired })
      if (doc != null) purged.push(doc)
    }
    if (purged.length > 0) {
      total += purged.length
      await h.purged(purged, ctx)
    }
    if (candidates.length < batchSize) return total
  }
}

/** An index a plugin's own queries need (soft delete's sweep); named, so a second call is a no-op. */
export async function ensurePluginIndex (
  h: PluginOpsHost,
  ctx: RequestContext,
  keys: IndexSpecification,
  options: { name: string; sparse?: boolean }
): Promise<void> {
  systemOnly(ctx, 'creating an index')
  await h.collection.createIndex(keys, options)
}

/**
 * The stored FileMeta of `field` on record `_id` when that record is visible to `ctx` (scopes
 * included: a tombstone's file is gone) and still names blob `key`; null otherwise.
 */
export async function fileNamingKey (
  h: PluginOpsHost,
  ctx: RequestContext,
  _id: ObjectId,
  field: string,
  key: string
): Promise<Document | null> {
  systemOnly(ctx, 'looking a blob up by key')
  fileFieldOf(h.model, field)
  const filter = and({ _id, [`${field}.key`]: key }, h.scopeFilter(ctx, 'get'))
  const doc = await h.collection.findOne(filter, { projection: { [field]: 1 }, maxTimeMS: h.maxTimeMS })
  return (doc?.[field] as Document | undefined) ?? null
}

/**
 * The blob keys `field` names on the records `ids`, tombstones included (a tombstone owns its
 * blobs until the sweep purges it): the files reconciler keeps exactly these.
 */
export async function fileKeysOf (
  h: PluginOpsHost,
  ctx: RequestContext,
  ids: ObjectId[],
  field: string
): Promise<Set<string>> {
  systemOnly(ctx, 'listing blob keys')
  fileFieldOf(h.model, field)
  const named = new Set<string>()
  for await (const doc of h.collection.find({ _id: { $in: ids } }, { projection: { [field]: 1 } })) {
    const key = (doc[field] as { key?: unknown } | undefined)?.key
    if (typeof key === 'string') named.add(key)
  }
  return named
}
