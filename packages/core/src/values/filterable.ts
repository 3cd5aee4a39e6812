import type { FieldKind } from './kinds.js'
import { SYSTEM_KINDS, hasDeletedAt, resolveField, type FieldLookup } from './resolve-field.js'

/** A key a filter or sort may name, with the scalar kind its values are cast to. */
export interface FilterableField {
  /** Dotted from the record root: `amount`, `address.city`, `_id`. */
  path: string
  kind: FieldKind | 'objectId'
  lowercase: boolean
  enum?: readonly unknown[]
  /** A stamped system field (`_id`, `userId`, `accountId`, `createdAt`, `updatedAt`; `deletedAt` with soft delete). */
  system: boolean
}

/**
 * Every key the service's filter and sort accept for a schema, in one list the surfaces
 * describe (GraphQL inputs, MCP tool schemas): the system fields, then every stored scalar (or
 * array-of-scalar) field at any depth. Computed fields are left out (not stored); fields the
 * caller may not read are still refused per caller by the service.
 */
export function filterableFields (model: FieldLookup): FilterableField[] {
  const out: FilterableField[] = []
  for (const path of SYSTEM_KINDS.keys()) out.push({ path, ...resolved(model, path), system: true })
  if (hasDeletedAt(model)) out.push({ path: 'deletedAt', kind: 'date', lowercase: false, system: true })
  for (const [path, f] of model.fieldsByPath) {
    if (f.computed !== undefined || SYSTEM_KINDS.has(path)) continue
    const leaf = f.kind === 'array' ? f.items : f
    if (leaf === undefined || !['string', 'number', 'boolean', 'date'].includes(leaf.kind)) continue
    out.push({ path, ...resolved(model, path), system: false })
  }
  return out
}

function resolved (model: FieldLookup, path: string): Omit<FilterableField, 'path' | 'system'> {
  const t = resolveField(model, path)
  return { kind: t.kind, lowercase: t.lowercase, ...(t.enum !== undefined ? { enum: t.enum } : {}) }
}
