import type { Document } from 'mongodb'
import { NotFoundError, parseId, toJson, type DeleteStrategy, type RecordJson, type RequestContext, type ResourceService, type Scope } from '@svc/core'

/** Live records only, unless the caller asked for tombstones (`__includeDeleted=true` on list/get). */
export const liveScope: Scope = ({ options }) => options.includeDeleted === true ? undefined : { deletedAt: null }

/**
 * Delete turns into a tombstone. `filter` already holds tenant + scopes, so `deletedAt: null`
 * is in it: a second delete of a tombstone matches nothing and is 404. `updatedAt` moves too,
 * so sync clients reading with `__includeDeleted=true` see the change.
 */
export function tombstoneStrategy (now: () => Date): DeleteStrategy {
  return async ({ collection, filter, maxTimeMS }) => {
    const at = now()
    const before = await collection.findOneAndUpdate(filter, { $set: { deletedAt: at, updatedAt: at } }, { returnDocument: 'before', maxTimeMS })
    return before == null ? null : { before, after: { ...before, deletedAt: at, updatedAt: at } }
  }
}

/**
 * Restore: same authorisation as delete (the service's `delete` tenant filter, including any
 * `acl.delete` bypass), only tombstones match, so restoring a live record is 404. Published as
 * `updated` with `operation: 'restore'` (audit writes a `restore` row); no update hooks fire.
 */
export async function restoreRecord (service: ResourceService, ctx: RequestContext, id: string, now: () => Date): Promise<RecordJson> {
  const notFound = (): Error => new NotFoundError(`${service.model.path} not found`)
  const _id = parseId(id)
  if (_id == null) throw notFound()
  const scoped = service.scopeFilter(ctx, 'delete', { includeDeleted: true })
  const filter: Document = { $and: [scoped, { _id, deletedAt: { $ne: null } }] }
  const updatedAt = now()
  const previous = await service.collection.findOneAndUpdate(filter, { $unset: { deletedAt: '' }, $set: { updatedAt } }, { returnDocument: 'before', maxTimeMS: service.maxTimeMS })
  if (previous == null) throw notFound()
  const next: Document = { ...previous, updatedAt }
  delete next.deletedAt
  const before = toJson<RecordJson>(previous)
  await service.publish({ action: 'updated', operation: 'restore', model: service.model, ctx, recordId: before._id, before, after: toJson<RecordJson>(next) })
  return service.present(ctx, next)
}
