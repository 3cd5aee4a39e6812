import { ValidationError } from '../errors.js'
import type { FieldKind } from './kinds.js'

/** The part of a field resolution needs; `FieldModel` fits it structurally. */
export interface LookupField {
  kind: FieldKind
  lowercase: boolean
  /** Derived, never stored: not filterable or sortable (the service refuses it per caller). */
  computed?: unknown
  enum?: readonly unknown[]
  items?: LookupField
}

/** Anything with the registry's by-path field index (a `ResourceModel`, or a model being built). */
export interface FieldLookup {
  fieldsByPath: ReadonlyMap<string, LookupField>
  /** Soft delete on: the tombstone stamp `deletedAt` filters and sorts like the other system dates. */
  softDelete?: { enabled: boolean }
}

/** What a filter or sort key resolves to: the scalar kind values are cast to. */
export interface ResolvedField {
  kind: FieldKind | 'objectId'
  lowercase: boolean
  enum?: readonly unknown[]
}

// A Map, not an object literal: `constructor` or `toString` must not resolve through a prototype.
export const SYSTEM_KINDS: ReadonlyMap<string, FieldKind | 'objectId'> = new Map<string, FieldKind | 'objectId'>([
  ['_id', 'objectId'],
  ['userId', 'string'],
  ['accountId', 'string'],
  ['createdAt', 'date'],
  ['updatedAt', 'date']
])
const SCALARS = new Set<FieldKind>(['string', 'number', 'boolean', 'date'])

function refuse (field: string, message: string): never {
  throw new ValidationError(message, { field })
}

/**
 * `deletedAt` on a soft-delete schema: a trash is `__includeDeleted=true` with
 * `deletedAt={"$gte":"1970-01-01T00:00:00Z"}` (a range matches dates only, never null or
 * missing). Without `__includeDeleted` the live scope (`deletedAt: null`) is ANDed with it: nothing.
 */
export function hasDeletedAt (model: FieldLookup): boolean {
  return model.softDelete?.enabled === true
}

/**
 * Resolves a filter or sort key to a system field or a declared scalar (or array-of-scalar)
 * field. Every lookup is own-property only.
 */
export function resolveField (model: FieldLookup, key: string): ResolvedField {
  if (key.includes('$')) refuse(key, `operator-like key '${key}' is not allowed`)
  const system = SYSTEM_KINDS.get(key)
  if (system !== undefined) return { kind: system, lowercase: false }
  if (key === 'deletedAt' && hasDeletedAt(model)) return { kind: 'date', lowercase: false }
  const f = model.fieldsByPath.get(key)
  if (f === undefined) refuse(key, `unknown field '${key}'`)
  const leaf = f.kind === 'array' ? f.items! : f
  if (!SCALARS.has(leaf.kind)) refuse(key, `field '${key}' cannot be filtered or sorted`)
  return { kind: leaf.kind, lowercase: leaf.lowercase, ...(leaf.enum !== undefined ? { enum: leaf.enum } : {}) }
}
