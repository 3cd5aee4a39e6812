import {
  MAX_IN_VALUES,
  MAX_REGEX_LENGTH,
  REGEX_OPTIONS,
  filterableFields,
  type FilterableField,
  type ResourceModel
} from '@svc/core/kit'
import type { JsonSchema } from '../types.js'

type Filterable = FilterableField

function scalar (f: Filterable): JsonSchema {
  switch (f.kind) {
    case 'number':
      return { type: 'number' }
    case 'boolean':
      return { type: 'boolean' }
    // A lowercase field matches 'Won' to 'won': its values are named in the description, not enforced.
    case 'string':
      return f.enum !== undefined && !f.lowercase ? { type: 'string', enum: f.enum } : { type: 'string' }
    default:
      return { type: 'string' }
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
  const ops: Record<string, JsonSchema> = { $ne: v, $in: { type: 'array', items: v, maxItems: MAX_IN_VALUES } }
  if (f.kind !== 'boolean' && f.enum === undefined) Object.assign(ops, { $gt: v, $gte: v, $lt: v, $lte: v })
  if (f.kind === 'string') {
    Object.assign(ops, {
      $regex: { type: 'string', maxLength: MAX_REGEX_LENGTH },
      $options: { type: 'string', pattern: `^[${REGEX_OPTIONS}]*$` }
    })
  }
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
    description: `Field conditions, all of which must hold. {"field": value} is equality (an array field matches when it contains the value); {"field": {"$gte": 10, "$lt": 20}} uses operators $gt $gte $lt $lte $ne $in (list, at most ${MAX_IN_VALUES}) $regex (string fields, at most ${MAX_REGEX_LENGTH} characters, $options of ${[...REGEX_OPTIONS].join(' ')}). Values are cast to the field's type; dates are ISO 8601. Example: ${JSON.stringify(filterExample(model))}`
  }
}

/** A filter a model can copy, built from the schema's own fields. */
export function filterExample (model: ResourceModel): Record<string, unknown> {
  const fields = filterableFields(model).filter((f) => !f.system)
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
