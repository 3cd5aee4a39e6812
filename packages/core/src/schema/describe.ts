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
  // Role names only: the manifest describes the schema, so ACL'd fields are still listed.
  if (f.acl !== undefined) out.acl = { ...f.acl }
  // Limits a client checks before uploading; `accept` absent means any type.
  if (f.file !== undefined) out.file = { ...f.file }
  if (f.kind === 'object') out.fields = f.fields!.map(field)
  if (f.kind === 'array' && f.items!.kind === 'object') out.fields = f.items!.fields!.map(field)
  return out
}

const STAMPED = [
  { name: '_id', type: 'String', required: true, stamped: true, searchable: false, computed: false },
  { name: 'userId', type: 'String', required: true, stamped: true, searchable: false, computed: false },
  { name: 'accountId', type: 'String', required: false, stamped: true, searchable: false, computed: false },
  { name: 'createdAt', type: 'date', required: true, stamped: true, searchable: false, computed: false },
  { name: 'updatedAt', type: 'date', required: true, stamped: true, searchable: false, computed: false }
]

/**
 * JSON-safe, plugin-independent description of one model. `Manifest.schema()` adds the effective
 * soft delete/audit flags and endpoints for `_describe` and `GET /api/<v>/<path>-schema`.
 * Never exposes hooks, computed/default functions, pipelines, scope filters or webhook secrets.
 */
export function describeModel (model: ResourceModel): Record<string, unknown> {
  return {
    version: model.version,
    path: model.path,
    collection: model.collection,
    softDelete: model.softDelete.enabled,
    audit: model.audit,
    fields: [...model.fields.map((f) => ({ ...field(f), stamped: false })), ...STAMPED],
    relations: Object.fromEntries(
      Object.values(model.relations).map((r) => [r.name, { kind: r.kind, target: r.target, fk: r.fk }])
    ),
    aggregations: model.aggregations.map((a) => ({
      name: a.name,
      ...(a.description !== undefined ? { description: a.description } : {}),
      params: a.params.map((p) => ({ name: p.name, type: p.typeName, required: p.required })),
      unsafe: a.unsafe,
      ...(a.ttlSeconds !== undefined ? { cache: { ttlSeconds: a.ttlSeconds } } : {})
    })),
    compositeIndex: model.compositeIndexes,
    stateMachines: Object.fromEntries(
      Object.entries(model.stateMachines).map(([k, sm]) => [
        k,
        { initial: sm.initial, states: sm.states, transitions: sm.transitions }
      ])
    ),
    fileFields: model.fields.filter((f) => f.kind === 'file').map((f) => f.name),
    // Scope filters are server-side; only the client roles that have one are named.
    acl: { list: model.acl.list, delete: model.acl.delete, scopeRoles: Object.keys(model.acl.scope) },
    schemas: { create: model.schemas.create, update: model.schemas.update, read: model.schemas.read }
  }
}
