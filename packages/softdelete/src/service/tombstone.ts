import type { Document } from 'mongodb'
import { NotFoundError, type RecordJson, type RequestContext, type ResourceService } from '@svc/core'
import { parseId, type DeleteStrategy, type Scope } from '@svc/core/kit'

/** Live records only, unless the caller asked for tombstones (`__includeDeleted=true` on list/get). */
export const liveScope: Scope = ({ options }) => (options.includeDeleted === true ? undefined : { deletedAt: null })

/**
 * Delete turns into a tombstone. Core applies it to the record it read with tenant + scopes,
 * so `deletedAt: null` held: a second delete of a tombstone matches nothing and is 404. Core
 * moves `updatedAt` too, so sync clients reading with `__includeDeleted=true` see the change.
 */
export function tombstoneStrategy (now: () => Date): DeleteStrategy {
  return () => ({ $set: { deletedAt: now() } })
}

/**
 * Restore: same authorisation as delete (the service's `delete` tenant filter, including any
 * `acl.delete` bypass), only tombstones match, so restoring a live record is 404. Written by
 * core's `updateWhere` (durable effects, `updatedAt`) and published as `updated` with
 * `operation: 'restore'` (audit writes a `restore` row); no update hooks fire.
 */
export async function restoreRecord (service: ResourceService, ctx: RequestContext, id: string): Promise<RecordJson> {
  const notFound = (): Error => new NotFoundError(`${service.model.path} not found`)
  const _id = parseId(id)
  if (_id == null) throw notFound()
  const scoped = service.scopeFilter(ctx, 'delete', { includeDeleted: true })
  const filter: Document = { $and: [scoped, { _id, deletedAt: { $ne: null } }] }
  const images = await service.updateWhere(ctx, filter, { $unset: { deletedAt: '' } }, { operation: 'restore' })
  if (images === null) throw notFound()
  return service.present(ctx, images.after)
}
