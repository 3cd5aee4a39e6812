import type { Document } from 'mongodb'
import { ForbiddenError, UnauthenticatedError } from '../errors.js'
import type { Identity, RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { SchemaError } from '../schema/schema-error.js'
import { documentBypass } from './acl.js'
import { buildFilter } from './filter.js'

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'bulk'
const READS = new Set<Operation>(['list', 'get'])

/**
 * The tenant part of every filter. Users see their own `userId` only. Api clients may read,
 * restricted to `acl.scope[role]` (and to their owner's records when they have one); a schema with no scope for the client's role is
 * closed to it (403), so forgetting a scope never publishes a collection. System calls
 * (`system: true` without an identity) are unscoped and must be explicit.
 */
export function tenantFilter (
  model: ResourceModel,
  ctx: RequestContext,
  op: Operation,
  clientScopes: Map<string, Document>
): Document {
  const identity = ctx.identity
  if (identity == null) {
    if (ctx.system === true) return {}
    throw new UnauthenticatedError()
  }
  if (identity.kind === 'client') {
    if (!READS.has(op)) throw new ForbiddenError('api clients are read-only')
    const scopes = identity.roles.map((r) => clientScopes.get(r)).filter((s): s is Document => s !== undefined)
    if (scopes.length === 0) throw new ForbiddenError(`no public access to ${model.path} for this client`)
    const scope = scopes.length === 1 ? scopes[0] : { $or: scopes }
    // CONTRACT "Api clients": an owned client is its tenant's storefront, first scoped to the owner.
    return identity.userId != null && identity.userId !== '' ? and({ userId: identity.userId }, scope) : scope
  }
  return documentBypass(model, identity, op) ?? { userId: requireUserId(identity) }
}

function requireUserId (identity: Identity): string {
  if (typeof identity.userId !== 'string' || identity.userId === '') throw new UnauthenticatedError()
  return identity.userId
}

/**
 * `acl.scope` filters are trusted schema code but still go through the filter rules and casting;
 * one outside them stops start-up naming the schema.
 */
export function compileClientScopes (model: ResourceModel): Map<string, Document> {
  return new Map(
    Object.entries(model.acl.scope).map(([role, f]) => {
      try {
        return [role, buildFilter(model, f)]
      } catch (err) {
        throw new SchemaError(model.source, `acl.scope.${role}`, (err as Error).message)
      }
    })
  )
}

/** Ownership fields written on create; always from the identity, never from the input. */
export function stamp (ctx: RequestContext): { userId: string; accountId?: string } {
  const identity = ctx.identity
  if (identity == null || identity.kind !== 'user') {
    if (identity?.kind === 'client') throw new ForbiddenError('api clients are read-only')
    throw new UnauthenticatedError('creating a record needs a user identity')
  }
  const out: { userId: string; accountId?: string } = { userId: requireUserId(identity) }
  if (identity.accountId !== undefined) out.accountId = identity.accountId
  return out
}

/** ANDs filters, merging plain objects when their keys do not collide (keeps `{ _id, userId }` index-friendly). */
export function and (...parts: Array<Document | undefined>): Document {
  const present = parts.filter((p): p is Document => p != null && Object.keys(p).length > 0)
  if (present.length <= 1) return present[0] ?? {}
  const merged: Document = {}
  for (const p of present) {
    for (const k of Object.keys(p)) {
      if (Object.hasOwn(merged, k) || k === '$or' || k === '$and') return { $and: present }
      merged[k] = p[k]
    }
  }
  return merged
}
