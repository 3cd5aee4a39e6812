import type { Document } from 'mongodb'
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'
import { canRead, canWrite } from './acl.js'
import { parseId } from '../values/convert.js'
import { and } from './tenancy.js'
import type { RecordJson } from './types.js'
import { patchRecord, type WriteHost } from './write-path.js'

/**
 * File fields are written only through here (by `@svc/files`): the JSON bodies refuse them, so
 * stored metadata always names a blob that was stored first. Per the spec's hook table uploads
 * and file deletes fire no lifecycle hooks; tenancy, scopes, field ACL, audit rows and the
 * `<path>.updated` event apply as for any update.
 */
export function fileFieldOf (model: ResourceModel, name: string): FieldModel {
  const f = model.fieldsByPath.get(name)
  if (f === undefined || f.kind !== 'file') {
    throw new ValidationError(`${name} is not a file field of ${model.path}`, { field: name })
  }
  return f
}

function notFound (model: ResourceModel): never {
  throw new NotFoundError(`${model.path} not found`)
}

/** The stored FileMeta (BSON) of a record the caller may read, or null when the field is empty. */
export async function readFileField (
  h: WriteHost,
  ctx: RequestContext,
  id: string,
  name: string
): Promise<Document | null> {
  const f = fileFieldOf(h.model, name)
  const scoped = h.scopeFilter(ctx, 'get')
  if (!canRead(ctx, f)) throw new ForbiddenError(`you may not read ${name}`, { field: name })
  const _id = parseId(id) ?? notFound(h.model)
  const doc = (await h.collection.findOne(and({ _id }, scoped), { projection: { [name]: 1 } })) ?? notFound(h.model)
  return (doc[name] as Document | undefined) ?? null
}

/**
 * Checks, before a byte of an upload is read, that the caller may change the field of this
 * record; answers the record's owner (blob keys are namespaced by tenant).
 */
export async function checkFileWrite (
  h: WriteHost,
  ctx: RequestContext,
  id: string,
  name: string
): Promise<{ userId: string }> {
  const f = fileFieldOf(h.model, name)
  const scoped = h.scopeFilter(ctx, 'update')
  if (!canWrite(ctx, f, 'update')) throw new ForbiddenError(`you may not change ${name}`, { field: name })
  const _id = parseId(id) ?? notFound(h.model)
  const doc = (await h.collection.findOne(and({ _id }, scoped), { projection: { userId: 1 } })) ?? notFound(h.model)
  return { userId: String(doc.userId) }
}

/**
 * Sets (`value`) or clears (`null`) a file field in one conditional write and answers what it
 * replaced, so the caller removes exactly the blob it displaced. Clearing an already empty
 * field writes nothing and answers `previous: null`.
 */
export async function writeFileField (
  h: WriteHost,
  ctx: RequestContext,
  id: string,
  name: string,
  value: Document | null
): Promise<{ previous: Document | null; record: RecordJson }> {
  const f = fileFieldOf(h.model, name)
  const scoped = h.scopeFilter(ctx, 'update')
  if (!canWrite(ctx, f, 'update')) throw new ForbiddenError(`you may not change ${name}`, { field: name })
  const _id = parseId(id) ?? notFound(h.model)
  const change = value === null ? { $unset: { [name]: '' as const } } : { $set: { [name]: value } }
  const filter = value === null ? and({ _id, [name]: { $ne: null } }, scoped) : and({ _id }, scoped)
  const images = await patchRecord(h, ctx, filter, change)
  if (images === null) {
    const current = (await h.collection.findOne(and({ _id }, scoped))) ?? notFound(h.model)
    return { previous: null, record: h.present(ctx, current) }
  }
  return { previous: (images.before[name] as Document | undefined) ?? null, record: h.present(ctx, images.after) }
}
