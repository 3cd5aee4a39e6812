import type { FieldModel, ResourceModel } from './model.js'

function field (f: FieldModel): Record<string, unknown> {
  const out: Record<string, unknown> = { name: f.name, type: f.typeName, required: f.required }
  if (f.enum !== undefined) out.enum = f.enum
  if (f.min !== undefined) out.min = f.min
  if (f.default !== undefined && typeof f.default !== 'function') out.default = f.default
  if (f.lowercase) out.lowercase = true
  out.searchable = f.searchable
  out.computed = f.computed !== undefined
  if (f.reference !== undefined) out.reference = f.reference
  if (f.kind === 'object') out.fields = f.fields!.map(field)
  if (f.kind === 'array' && f.items!.kind === 'object') out.fields = f.items!.fields!.map(field)
  return out
}

const STAMPED = [
  { name: 'userId', type: 'String', required: true, stamped: true },
  { name: 'accountId', type: 'String', required: false, stamped: true },
  { name: 'createdAt', type: 'date', required: true, stamped: true },
  { name: 'updatedAt', type: 'date', required: true, stamped: true }
]

/** JSON-safe description of one model: `GET /api/<v>/<path>-schema` now, `_describe` later. */
export function describeModel (model: ResourceModel): Record<string, unknown> {
  return {
    version: model.version,
    path: model.path,
    collection: model.collection,
    softDelete: model.softDelete.enabled,
    audit: model.audit,
    fields: [...model.fields.map((f) => ({ ...field(f), stamped: false })), ...STAMPED],
    relations: Object.fromEntries(Object.values(model.relations).map((r) => [r.name, { kind: r.kind, target: r.target, fk: r.fk }])),
    aggregations: model.aggregations.map((a) => ({
      name: a.name,
      ...(a.description !== undefined ? { description: a.description } : {}),
      params: a.params.map((p) => ({ name: p.name, type: p.typeName, required: p.required })),
      unsafe: a.unsafe,
      ...(a.ttlSeconds !== undefined ? { cache: { ttlSeconds: a.ttlSeconds } } : {})
    })),
    compositeIndex: model.compositeIndexes,
    stateMachines: Object.fromEntries(Object.entries(model.stateMachines).map(([k, sm]) => [k, { initial: sm.initial, states: sm.states, transitions: sm.transitions }])),
    fileFields: model.fields.filter((f) => f.kind === 'file').map((f) => f.name),
    acl: { list: model.acl.list, delete: model.acl.delete },
    schemas: { create: model.schemas.create, update: model.schemas.update, read: model.schemas.read }
  }
}
