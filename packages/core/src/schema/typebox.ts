import { Type, type TSchema } from '@sinclair/typebox'
import { ISO_DATE_PATTERN } from '../values/convert.js'
import { MAX_PAGE_SIZE } from '../values/limits.js'
import type { FieldModel, ResourceModel, ResourceSchemas } from './model.js'

// A pattern, not `format: date-time`, so plain dates (2024-05-01) are accepted too; kept in step with parseDate.
// The example keeps API tools' generated requests valid (a sample built from the pattern is not a date).
const DATE = (): TSchema =>
  Type.String({
    pattern: ISO_DATE_PATTERN,
    description: 'ISO 8601 date or date-time',
    examples: ['2024-05-01T09:30:00Z']
  })
/** Stamped fields are accepted on input (so a read record can be sent back) and ignored. */
const STAMPED_INPUT = {
  _id: Type.Optional(Type.Unknown()),
  userId: Type.Optional(Type.Unknown()),
  accountId: Type.Optional(Type.Unknown()),
  createdAt: Type.Optional(Type.Unknown()),
  updatedAt: Type.Optional(Type.Unknown())
}

type Mode = 'create' | 'update' | 'read'

/** Query options of a single read and of a list. */
const READ_OPTIONS = {
  __include: Type.Optional(Type.String({ description: 'comma-separated reference fields to expand' })),
  __includeDeleted: Type.Optional(Type.Boolean({ description: 'also soft-deleted records (admins)' }))
}

/** Fields a client may write: computed values are derived and File fields belong to the file routes. */
export function isWritable (f: FieldModel): boolean {
  return f.computed === undefined && f.kind !== 'file'
}

function leaf (f: FieldModel, mode: Mode): TSchema {
  const opts: Record<string, unknown> = {}
  // With `lowercase`, 'Won' is valid input for enum ['won']: the service checks after lowercasing.
  if (f.enum !== undefined) {
    if (f.lowercase) opts.description = `one of (case-insensitive): ${f.enum.join(', ')}`
    else opts.enum = f.enum
  }
  switch (f.kind) {
    case 'string':
      return Type.String(opts)
    case 'number':
      return Type.Number(f.min !== undefined ? { ...opts, minimum: f.min } : opts)
    case 'boolean':
      return Type.Boolean()
    case 'date':
      return mode === 'read' ? Type.String({ format: 'date-time' }) : DATE()
    case 'mixed':
      return Type.Unknown()
    case 'file':
      return Type.Object({
        key: Type.String(),
        size: Type.Number(),
        contentType: Type.String(),
        originalName: Type.String(),
        uploadedAt: Type.String({ format: 'date-time' }),
        url: Type.Optional(Type.String())
      })
    case 'array':
      return Type.Array(leaf(f.items!, mode))
    case 'object':
      return object(f.fields!, mode === 'update' ? 'create' : mode)
  }
}

function withOptions (f: FieldModel, mode: Mode): TSchema {
  const s = leaf(f, mode)
  // `nullable` (Ajv keyword) rather than a union: a union would let body coercion turn null into "".
  if (!f.required && mode !== 'read' && f.kind !== 'mixed') {
    const o = s as Record<string, unknown>
    o.nullable = true
    if (Array.isArray(o.enum)) o.enum = [...o.enum, null]
  }
  if (mode === 'create' && f.default !== undefined && typeof f.default !== 'function') {
    ;(s as Record<string, unknown>).default = f.default
  }
  return s
}

function object (fields: FieldModel[], mode: Mode, extra: Record<string, TSchema> = {}): TSchema {
  const props: Record<string, TSchema> = { ...extra }
  for (const f of fields) {
    if (mode !== 'read' && !isWritable(f)) continue
    const s = withOptions(f, mode)
    const required = mode === 'create' && f.required && f.default === undefined
    props[f.name] = required ? s : Type.Optional(s)
  }
  // Unknown input keys are refused (400 naming each), here and in the service, for every surface.
  return Type.Object(props, { additionalProperties: mode === 'read' })
}

/** TypeBox schemas generated from the model; they validate routes and later feed Swagger/GraphQL/MCP. */
export function buildSchemas (model: ResourceModel): ResourceSchemas {
  const id = Type.String({ description: 'record id (24 hex characters)' })
  const read = object(model.fields, 'read', {
    _id: id,
    userId: Type.String(),
    accountId: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' })
  })
  const filters: Record<string, TSchema> = {}
  const filterText = 'exact value, or a JSON operator object such as {"$gte":10}'
  for (const f of model.fields) {
    if (['string', 'number', 'boolean', 'date', 'array'].includes(f.kind)) {
      filters[f.name] = Type.Optional(Type.String({ description: filterText }))
    }
  }
  return {
    create: object(model.fields, 'create', STAMPED_INPUT),
    update: object(model.fields, 'update', STAMPED_INPUT),
    read,
    listQuery: Type.Object(
      {
        __page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based page' })),
        __perPage: Type.Optional(Type.Integer({ minimum: 1, description: `page size, capped at ${MAX_PAGE_SIZE}` })),
        __sort: Type.Optional(Type.String({ description: 'field:asc,other:desc' })),
        ...READ_OPTIONS,
        __cursor: Type.Optional(
          Type.String({ maxLength: 4096, description: 'nextCursor of the previous page: continues after it' })
        ),
        __count: Type.Optional(
          Type.Boolean({ description: 'false: skip counting (totalResults and totalPages are null)' })
        ),
        q: Type.Optional(Type.String()),
        ...filters
      },
      { additionalProperties: true }
    ),
    list: Type.Object({
      results: Type.Array(read),
      totalResults: Type.Union([Type.Integer(), Type.Null()]),
      page: Type.Integer(),
      perPage: Type.Integer(),
      totalPages: Type.Union([Type.Integer(), Type.Null()]),
      nextPage: Type.Union([Type.Integer(), Type.Null()]),
      prevPage: Type.Union([Type.Integer(), Type.Null()]),
      nextCursor: Type.Union([Type.String(), Type.Null()])
    }),
    params: Type.Object({
      id: Type.String({ description: 'record id (24 hex characters)', examples: ['65f000000000000000000001'] })
    }),
    getQuery: Type.Object(READ_OPTIONS, { additionalProperties: false }),
    bulk: Type.Object(
      {
        // The list filter in JSON: field values or operator objects ($eq $ne $gt $gte $lt $lte $in $nin …).
        filter: Type.Object(
          {},
          {
            additionalProperties: true,
            description: 'fields to match: a value, or an operator object',
            examples: [{ amount: { $lt: 100 } }]
          }
        ),
        record: object(model.fields, 'update', STAMPED_INPUT)
      },
      { additionalProperties: false }
    ),
    bulkResult: Type.Object({ numAffected: Type.Integer({ description: 'how many records the update reached' }) })
  }
}
