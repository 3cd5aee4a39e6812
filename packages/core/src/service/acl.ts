import type { Document } from 'mongodb'
import { ForbiddenError, ValidationError } from '../errors.js'
import type { Identity, RequestContext } from '../identity.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'
import { SYSTEM_FIELDS } from '../schema/model.js'
import { modelFacts } from './model-facts.js'

/**
 * Field- and document-level ACL. Roles come from the verified identity (bearer JWT or the
 * apiClient record); trusted `system: true` calls bypass every slot. An absent slot is open.
 */
export type WriteSlot = 'create' | 'update'

function roles (ctx: RequestContext): readonly string[] {
  return ctx.identity?.roles ?? []
}

function allowed (ctx: RequestContext, slot: string[] | undefined): boolean {
  if (ctx.system === true || slot === undefined) return true
  const mine = roles(ctx)
  return slot.some((r) => mine.includes(r))
}

export function canRead (ctx: RequestContext, f: FieldModel): boolean {
  return allowed(ctx, f.acl?.read)
}

export function canWrite (ctx: RequestContext, f: FieldModel, slot: WriteSlot): boolean {
  return allowed(ctx, f.acl?.[slot])
}

/**
 * Top-level names the caller may see (system fields included), or null when nothing is hidden:
 * relations and audit use it to project records exactly like the service's own answers.
 */
export function readableFields (model: ResourceModel, ctx: RequestContext): Set<string> | null {
  if (ctx.system === true || !modelFacts(model).readAcl) return null
  const out = new Set<string>(SYSTEM_FIELDS)
  for (const f of model.fields) if (canRead(ctx, f)) out.add(f.name)
  return out
}

/** Removes fields the caller may not read, in place (the object is a fresh JSON copy). */
export function stripUnreadable (record: Record<string, unknown>, readable: Set<string> | null): void {
  if (readable === null) return
  for (const k of Object.keys(record)) {
    if (!readable.has(k) && k !== 'availableTransitions') delete record[k]
  }
}

/**
 * Screens the keys a client sent, before any validation or hook: a field the caller may not
 * write is 403 naming it (not silently dropped: the client must learn its write did not land),
 * a computed field is 400 (it is derived, storing it would be a lie), and so is a file field
 * (FileMeta is written by the file routes only).
 */
export function screenWrite (model: ResourceModel, ctx: RequestContext, input: unknown, slot: WriteSlot): void {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return
  for (const key of Object.keys(input)) {
    const f = model.fieldsByPath.get(key)
    if (f === undefined || f.path !== key) continue
    if (f.computed !== undefined) throw new ValidationError(`${key} is computed and cannot be written`, { field: key })
    // FileMeta is written by the file routes only (the blob must exist); a JSON body cannot forge it.
    if (f.kind === 'file') {
      throw new ValidationError(
        `${key} is a file field: upload it with POST /:id/${key}, remove it with DELETE /:id/${key}`,
        { field: key }
      )
    }
    if (!canWrite(ctx, f, slot)) {
      throw new ForbiddenError(`you may not ${slot === 'create' ? 'set' : 'change'} ${key}`, { field: key })
    }
  }
}

/**
 * Filters and sorts may only name fields the caller can read, and no computed field (they are
 * not stored). A hidden field answers exactly like an unknown one, so its existence and values
 * cannot be probed through counts or ordering.
 */
export function screenQuery (
  model: ResourceModel,
  ctx: RequestContext,
  filter: Record<string, unknown> | undefined,
  sort: unknown
): void {
  const keys = filter != null && typeof filter === 'object' ? Object.keys(filter) : []
  const text = Array.isArray(sort) ? sort.join(',') : sort
  if (typeof text === 'string' && text !== '') {
    for (const part of text.split(',')) keys.push(part.trim().split(':')[0])
  }
  for (const key of keys) {
    const f = model.fieldsByPath.get(key.split('.')[0])
    if (f === undefined) continue
    if (!canRead(ctx, f)) throw new ValidationError(`unknown field '${key}'`, { field: key })
    if (f.computed !== undefined) {
      throw new ValidationError(`field '${key}' is computed and cannot be filtered or sorted`, { field: key })
    }
  }
}

/**
 * Document ACL: a role in `acl.list` / `acl.delete` lifts the `userId` filter for that operation
 * only. A token carrying `account_id` stays inside its organisation (`{ accountId }`): an org
 * admin never reaches another organisation's records. Null: no bypass.
 */
export function documentBypass (model: ResourceModel, identity: Identity, op: string): Document | null {
  const slot = op === 'list' ? model.acl.list : op === 'delete' ? model.acl.delete : undefined
  if (slot === undefined || !slot.some((r) => identity.roles.includes(r))) return null
  return identity.accountId !== undefined ? { accountId: identity.accountId } : {}
}
