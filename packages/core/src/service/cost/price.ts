import { SYSTEM_FIELDS, type RelationModel, type ResourceModel } from '../../schema/model.js'
import { MAX_AGGREGATION_ROWS, MAX_BULK_RECORDS, MAX_PAGE_SIZE, MAX_RELATED } from '../../values/limits.js'

/**
 * The one price list. An operation costs the values it can return (records × their fields),
 * counted before it runs from its real bounds: a page holds its page size, a hasMany relation up
 * to MAX_RELATED records whatever the page size, a belongsTo/hasOne one record per parent.
 * Writes cost the records they may touch. REST and MCP are charged by the service; GraphQL
 * prices its whole document with the same numbers (field by field, aliases and `__typename`
 * included) before any resolver runs.
 */

/** Values of one whole record as REST and MCP answer it: every declared path, the system fields, `availableTransitions`. */
export function recordValues (model: ResourceModel): number {
  return model.fieldsByPath.size + SYSTEM_FIELDS.length + (Object.keys(model.stateMachines).length > 0 ? 1 : 0)
}

/** Records a page can hold: the requested size (or the default), at most MAX_PAGE_SIZE, at least 1. */
export function pageRecords (requested: unknown, pageSize: number): number {
  const n = typeof requested === 'number' && Number.isFinite(requested) ? Math.floor(requested) : pageSize
  return Math.min(Math.max(n, 1), MAX_PAGE_SIZE)
}

/** Records a relation can add for a batch of `parents`: a hasMany list up to its cap, else one per parent. */
export function relatedRecords (kind: RelationModel['kind'], parents: number): number {
  if (parents <= 0) return 0
  return kind === 'hasMany' ? MAX_RELATED : Math.min(parents, MAX_RELATED)
}

/** A declared aggregation answers at most this many rows. */
export const AGGREGATION_PRICE = MAX_AGGREGATION_ROWS
/** A bulk update or delete may touch this many records (it answers a count). */
export const BULK_WRITE_PRICE = MAX_BULK_RECORDS

/** What a read of `records` records of `model`, relations populated, can return. */
export function readPrice (
  model: ResourceModel,
  records: number,
  includes: Array<{ kind: RelationModel['kind']; target: ResourceModel }>
): number {
  let price = records * recordValues(model)
  for (const inc of includes) price += relatedRecords(inc.kind, records) * recordValues(inc.target)
  return price
}
