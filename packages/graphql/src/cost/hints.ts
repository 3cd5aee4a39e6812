import type { RelationModel } from '@svc/core/kit'

/**
 * How a field's records are counted by the cost analysis (see analysis.ts), attached to the field
 * as `extensions.svcCost` by the schema builder. A field without a hint is one value per parent,
 * and its selection is resolved once per parent.
 */
export type CostHint =
  /** A page of records: the `arg` size (the default page size without it), capped by core. */
  | { kind: 'page'; arg: 'limit' | 'perPage' }
  /** One record per item of the list argument `arg` (`<path>CreateMany(records)`). */
  | { kind: 'batch'; arg: 'records' }
  /** A relation: a hasMany list may hold MAX_RELATED records, belongsTo/hasOne one per parent. */
  | { kind: 'related'; relation: RelationModel['kind'] }
  /** A fixed price per parent on top of the field itself (aggregation rows, records a bulk write touches). */
  | { kind: 'flat'; price: number }

export function costHint (hint: CostHint): { extensions: { svcCost: CostHint } } {
  return { extensions: { svcCost: hint } }
}
