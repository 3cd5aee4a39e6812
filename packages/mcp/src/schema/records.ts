import type { FieldModel, ResourceModel } from '@svc/core/kit'
import type { JsonSchema, ObjectSchema } from '../types.js'
import { allowNull, outputSchema, plainSchema } from './plain.js'

// Stamped by the service from the caller's identity and clock; a model never sends them.
const STAMPED = ['_id', 'userId', 'accountId', 'createdAt', 'updatedAt']

/** What a model needs to know about a field beyond its JSON type, in one line. */
export function fieldNote (model: ResourceModel, f: FieldModel): string {
  const notes: string[] = []
  if (f.required) notes.push('required')
  if (f.enum !== undefined) notes.push(`one of ${f.enum.map((v) => JSON.stringify(v)).join(', ')}`)
  if (f.min !== undefined) notes.push(`minimum ${f.min}`)
  if (f.default !== undefined && typeof f.default !== 'function') notes.push(`default ${JSON.stringify(f.default)}`)
  if (f.lowercase) notes.push('stored lowercased')
  if (f.kind === 'date') notes.push('ISO 8601 date or date-time')
  if (f.searchable) notes.push('text-searchable')
  if (f.computed !== undefined) notes.push('computed on read, cannot be written')
  const relation = Object.values(model.relations).find((r) => r.kind === 'belongsTo' && r.fk === f.path)
  if (relation !== undefined) notes.push(`id of a ${relation.target} record (relation '${relation.name}')`)
  const sm = f.stateMachine
  if (sm !== undefined) {
    const moves = Object.entries(sm.transitions)
      .map(([from, to]) => `${from} → ${to.length > 0 ? to.join('|') : '(final)'}`)
      .join('; ')
    notes.push(`state machine starting in '${sm.initial}', changed only along: ${moves} (see availableTransitions)`)
  }
  if (f.kind === 'file') notes.push('file metadata; change it with the upload_/delete_ file tools')
  if (f.acl?.read !== undefined) notes.push(`readable only by roles ${f.acl.read.join(', ')}`)
  if (f.acl?.create !== undefined) notes.push(`settable on create only by roles ${f.acl.create.join(', ')}`)
  if (f.acl?.update !== undefined) notes.push(`changeable only by roles ${f.acl.update.join(', ')}`)
  return notes.join('; ')
}

function describeProperties (model: ResourceModel, schema: JsonSchema): void {
  const props = schema.properties as Record<string, JsonSchema>
  for (const f of model.fields) {
    const p = props[f.name]
    if (p === undefined) continue
    const note = fieldNote(model, f)
    if (note !== '') p.description = note
  }
}

/**
 * The `record` argument of create_/update_: core's create/update body schema without the stamped
 * keys, unknown keys refused (additionalProperties stays false). On update `null` clears an
 * optional field.
 */
export function recordInput (model: ResourceModel, mode: 'create' | 'update'): JsonSchema {
  const schema = plainSchema(mode === 'create' ? model.schemas.create : model.schemas.update)
  const props = schema.properties as Record<string, JsonSchema>
  for (const k of STAMPED) delete props[k]
  if (Array.isArray(schema.required)) {
    schema.required = schema.required.filter((k: unknown) => !STAMPED.includes(k as string))
  }
  describeProperties(model, schema)
  // A record is born in its initial state (core answers INVALID_TRANSITION for any other).
  if (mode === 'create') {
    for (const [field, sm] of Object.entries(model.stateMachines)) {
      if (props[field] !== undefined) props[field].enum = [sm.initial, null]
    }
  }
  schema.description =
    mode === 'create'
      ? `The new ${model.path} record. userId, accountId, _id and timestamps are set by the service.`
      : 'Only the fields to change; null clears an optional field.'
  return schema
}

/**
 * One record as every read, write and relation tool answers it: core's read schema, every
 * schema field optional and nullable (field ACL strips what the caller may not read, computed
 * fields may be null), plus `availableTransitions` and, with soft delete, `deletedAt`.
 */
export function recordOutput (model: ResourceModel, softDelete: boolean): ObjectSchema {
  const schema = outputSchema(model.schemas.read) as ObjectSchema
  const props = schema.properties as Record<string, JsonSchema>
  // Field notes live on the input schemas and list_resources; repeating them on every output would only cost tokens.
  for (const f of model.fields) if (props[f.name] !== undefined) allowNull(props[f.name])
  const machines = Object.keys(model.stateMachines)
  if (machines.length > 0) {
    props.availableTransitions =
      machines.length === 1
        ? {
            type: 'array',
            items: { type: 'string' },
            description: `states ${machines[0]} may move to next (update_${model.path} with { ${machines[0]}: <state> })`
          }
        : {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string' } },
            description: 'per state field, the states it may move to next'
          }
  }
  if (softDelete) {
    props.deletedAt = {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'set when the record is deleted (restorable)'
    }
  }
  return schema
}

/** The spec's list envelope around records (or other rows), plus the size bound's flag; record lists add `nextCursor`. */
export function listOutput (items: JsonSchema, what: string, cursor = false): ObjectSchema {
  const int = { type: 'integer' }
  const maybe = { type: ['integer', 'null'] }
  const counted = cursor ? maybe : int
  const required = ['results', 'totalResults', 'page', 'perPage', 'totalPages', 'nextPage', 'prevPage', 'truncated']
  return {
    type: 'object',
    properties: {
      results: { type: 'array', items, description: what },
      totalResults: {
        ...counted,
        description: cursor ? 'matches in all pages; null with count: false' : 'matches in all pages'
      },
      page: int,
      perPage: int,
      totalPages: counted,
      nextPage: { ...maybe, description: 'null on the last page' },
      prevPage: maybe,
      ...(cursor
        ? {
            nextCursor: {
              type: ['string', 'null'],
              description: 'pass as cursor for the next page; null on the last page'
            }
          }
        : {}),
      truncated: {
        type: 'boolean',
        description: 'true when results were cut to fit the answer size: ask for a smaller perPage'
      }
    },
    required: cursor ? [...required, 'nextCursor'] : required
  }
}
