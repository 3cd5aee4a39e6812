import type { Document } from 'mongodb'
import { Query } from 'mingo'
import { ForbiddenError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { toJson } from '../values/convert.js'
import { readableFields } from './acl.js'
import { tenantFilter } from './tenancy.js'
import type { RecordJson } from './types.js'

/** What the audience test reads of a record event (a bulk event has no record). */
export interface AudienceEvent {
  /** The tenant the event belongs to (the record's owner; a bulk write's caller). */
  userId: string | null
  record?: RecordJson
}

/**
 * Who may see a schema's record events: the caller's list rule (tenant, an `acl.list` role's
 * bypass, an api client's `acl.scope`) tested in memory on the record as written, so a live
 * feed never asks the database per event and never sees more than the caller's list would.
 * Plugin scopes (soft delete's `deletedAt: null`) are not applied: a delete's event carries
 * the tombstone.
 */
export interface EventAudience {
  /**
   * The one tenant whose events can be seen, or null when other tenants' can too (an `acl.list`
   * role, an operator api client): a fan-out indexes its subscribers by it.
   */
  readonly tenant: string | null
  /**
   * Top-level fields of the record the caller may read (null: all); events with the same set
   * are presented the same way, so a fan-out presents each event once per set.
   */
  readonly readable: ReadonlySet<string> | null
  sees: (event: AudienceEvent) => boolean
}

/** The `userId` a list filter pins, if it pins one (`{ userId }`, or one branch of an `$and`). */
function pinnedTenant (filter: Document): string | null {
  if (typeof filter.userId === 'string') return filter.userId
  const parts = Array.isArray(filter.$and) ? (filter.$and as Document[]) : []
  for (const p of parts) if (typeof p.userId === 'string') return p.userId
  return null
}

/**
 * The audience of `ctx` for `model`'s events; null when the schema is closed to the caller (an
 * api client without an `acl.scope` for its role). An anonymous caller is 401 as on a list.
 */
export function eventAudience (
  model: ResourceModel,
  ctx: RequestContext,
  clientScopes: Map<string, Document>
): EventAudience | null {
  let filter: Document
  try {
    filter = tenantFilter(model, ctx, 'list', clientScopes)
  } catch (err) {
    if (err instanceof ForbiddenError) return null
    throw err
  }
  const tenant = pinnedTenant(filter)
  const readable = readableFields(model, ctx)
  const keys = Object.keys(filter)
  if (keys.length === 0) return { tenant, readable, sees: () => true }
  if (keys.length === 1 && tenant !== null && keys[0] === 'userId') {
    return { tenant, readable, sees: (e) => e.userId === tenant }
  }
  // Scope values are cast to BSON (dates, ids); records are JSON: compare both in JSON form.
  const query = new Query(toJson(filter))
  return {
    tenant,
    readable,
    // A bulk event carries no record: only a rule on the tenant alone can admit it.
    sees: (e) => query.test(e.record ?? { userId: e.userId })
  }
}
