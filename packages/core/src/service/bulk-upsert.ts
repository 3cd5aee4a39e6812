import { ObjectId, type Document } from 'mongodb'
import type { ResourceModel } from '../schema/model.js'
import { SYSTEM_FIELD_SET } from '../schema/model.js'
import { prepareInput } from './input.js'

function isOperatorObject (v: unknown): boolean {
  return typeof v === 'object' && v !== null && !(v instanceof Date) && !(v instanceof ObjectId)
}

/**
 * Bulk PUT is an upsert only when it is safe: the filter names no stamped field (`_id` would let
 * a caller probe other tenants' ids through a duplicate-key answer) and the filter's equality
 * values plus `record` form a valid new record. Returns that record (the filter's equality
 * values, `record`, defaults and ownership; core stamps the dates), or null for a plain update.
 */
export function upsertSeed (
  model: ResourceModel,
  userFilter: Document,
  set: Record<string, unknown>,
  owner: Record<string, unknown>
): Document | null {
  const seeded: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(userFilter)) {
    if (SYSTEM_FIELD_SET.has(k)) return null
    if (k.includes('.') || isOperatorObject(v)) continue
    seeded[k] = v
  }
  let created: Record<string, unknown>
  try {
    created = prepareInput(model, { ...seeded, ...set }, 'create').set
  } catch {
    return null
  }
  return { ...created, ...owner }
}
