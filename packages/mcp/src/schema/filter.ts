import { resolveField, type FieldKind, type ResourceModel } from '@svc/core'
import type { JsonSchema } from '../types.js'

// Core's filter rules decide what is filterable; these are the names they know besides the fields.
const SYSTEM_KEYS = ['_id', 'userId', 'accountId', 'createdAt', 'updatedAt']
// Everyone else sees one tenant only: a filter on the tenant keys would be noise in the schema.
const TENANT_KEYS = new Set(['userId', 'accountId'])
const MAX_IN = 1000
const MAX_REGEX = 256

interface Filterable { path: string, kind: FieldKind | 'objectId', lowercase: boolean, enum?: readonly unknown[] }

/** Every key core's `buildFilter`/`buildSort` accept for this model, with its scalar type. */
export function filterableFields (model: ResourceModel): Filterable[] {
  const out: Filterable[] = []
  for (const path of [...SYSTEM_KEYS, ...model.fieldsByPath.keys()]) {
    if (TENANT_KEYS.has(path) && model.acl.list.length === 0) continue
    try {
      const t = resolveField(model, path)
      const f = model.fieldsByPath.get(path)
      // Computed fields are not stored: core refuses them in filters and sorts.
      if (f?.computed !== undefined) continue
      out.push({ path, kind: t.kind, lowercase: t.lowercase, ...(t.enum !== undefined ? { enum: t.enum } : {}) })
    } catch {
      // Not filterable (objects, Mixed, files): left out of the schema, refused by core anyway.
    }
  }
  return out
}

function scalar (f: Filterable): JsonSchema {
  switch (f.kind) {
    case 'number': return { type: 'number' }
    case 'boolean': return { type: 'boolean' }
    // A lowercase field matches 'Won' to 'won': its values are named in the description, not enforced.
    case 'string': return f.enum !== undefined && !f.lowercase ? { type: 'string', enum: f.enum } : { type: 'string' }
    default: return { type: 'string' }
  }
}

function note (f: Filterable): string | undefined {
  if (f.kind === 'date') return 'ISO 8601 date or date-time'
  if (f.kind === 'objectId') return 'record id (24 hex characters)'
  if (f.enum !== undefined && f.lowercase) return `one of (any case): ${f.enum.join(', ')}`
  return undefined
}

/** Operators that make sense for the field's type (core allows the same set on every type). */
function operators (f: Filterable): JsonSchema {
  const v = scalar(f)
  const ops: Record<string, JsonSchema> = { $ne: v, $in: { type: 'array', items: v, maxItems: MAX_IN } }
  if (f.kind !== 'boolean' && f.enum === undefined) Object.assign(ops, { $gt: v, $gte: v, $lt: v, $lte: v })
  if (f.kind === 'string') Object.assign(ops, { $regex: { type: 'string', maxLength: MAX_REGEX }, $options: { type: 'string', pattern: '^[imsx]*$' } })
  return { type: 'object', properties: ops, additionalProperties: false, minProperties: 1 }
}

/** `filter`: one property per filterable field, a plain value (equality) or an operator object. */
export function filterSchema (model: ResourceModel): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  for (const f of filterableFields(model)) {
    const description = note(f)
    properties[f.path] = { anyOf: [scalar(f), operators(f)], ...(description !== undefined ? { description } : {}) }
  }
  return {
    type: 'object',
    properties,
    additionalProperties: false,
    description: `Field conditions, all of which must hold. {"field": value} is equality (an array field matches when it contains the value); {"field": {"$gte": 10, "$lt": 20}} uses operators $gt $gte $lt $lte $ne $in (list, at most ${MAX_IN}) $regex (string fields, at most ${MAX_REGEX} characters, $options of i m s x). Values are cast to the field's type; dates are ISO 8601. Example: ${JSON.stringify(filterExample(model))}`
  }
}

/** A filter a model can copy, built from the schema's own fields. */
export function filterExample (model: ResourceModel): Record<string, unknown> {
  const fields = filterableFields(model).filter((f) => !SYSTEM_KEYS.includes(f.path))
  const out: Record<string, unknown> = {}
  const choice = fields.find((f) => f.enum !== undefined && f.enum.length > 0)
  if (choice !== undefined) out[choice.path] = choice.enum![0]
  const number = fields.find((f) => f.kind === 'number')
  if (number !== undefined) out[number.path] = { $gte: 10 }
  if (Object.keys(out).length === 0) {
    const text = fields.find((f) => f.kind === 'string')
    if (text !== undefined) out[text.path] = { $regex: '^a', $options: 'i' }
    else out.createdAt = { $gte: '2024-01-01' }
  }
  return out
}

/** `sort`: core's `field:asc,other:desc` text, the sortable fields named for the model. */
export function sortSchema (model: ResourceModel, search = false): JsonSchema {
  const names = filterableFields(model).map((f) => f.path)
  return {
    type: 'string',
    maxLength: 512,
    description: `Comma-separated field:asc or field:desc, e.g. "createdAt:desc" (the default${search ? '; with a search the default is "score", the best match first' : ''}). Sortable: ${names.join(', ')}`
  }
}
