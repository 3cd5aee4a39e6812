import type { SchemaDefinition } from './define.js'
import type { FieldModel, RelationModel, ResourceModel } from './model.js'
import { normalizeFields } from './fields.js'
import { isPlainObject } from '../values/plain-object.js'
import { SchemaError } from './schema-error.js'
import { buildSchemas } from './typebox.js'
import { compileAggregations } from './aggregations.js'

const KNOWN_KEYS = new Set([
  'path',
  'collection',
  'fields',
  'relations',
  'aggregations',
  'compositeIndex',
  'softDelete',
  'audit',
  'acl',
  'webhooks',
  'hooks',
  'version'
])
const HOOK_NAMES = new Set([
  'beforeCreate',
  'afterCreate',
  'beforeUpdate',
  'afterUpdate',
  'beforeDelete',
  'afterDelete'
])
const SEGMENT_RE = /^[A-Za-z][A-Za-z0-9_-]*$/

export interface NormalizeResult {
  model: ResourceModel
  unknownKeys: string[]
}

/**
 * Validates one schema definition on its own and normalizes it. Cross-schema checks
 * (duplicate paths, relation targets) happen in the registry once every file is loaded.
 */
export function normalizeSchema (source: string, raw: unknown, defaultVersion: string): NormalizeResult {
  if (!isPlainObject(raw)) {
    throw new SchemaError(
      source,
      'default export',
      'must be a plain object (use `export default { ... }` or defineSchema)'
    )
  }
  const def = raw as SchemaDefinition
  if (typeof def.path !== 'string' || !SEGMENT_RE.test(def.path)) {
    throw new SchemaError(source, 'path', 'is required: a URL segment (letters, digits, - and _)')
  }
  // `collection` defaults to `path` (the spec's convention) rather than refusing the file.
  const collection = def.collection ?? def.path
  if (
    typeof collection !== 'string' ||
    collection === '' ||
    collection.includes('$') ||
    collection.startsWith('system.')
  ) {
    throw new SchemaError(source, 'collection', 'must be a collection name')
  }
  const version = def.version ?? defaultVersion
  if (typeof version !== 'string' || !SEGMENT_RE.test(version)) {
    throw new SchemaError(source, 'version', 'must be a URL segment such as v1')
  }
  const fields = normalizeFields(source, def.fields)
  const fieldsByPath = indexFields(fields)
  const model: ResourceModel = {
    key: `${version}/${def.path}`,
    version,
    path: def.path,
    collection,
    source,
    fields,
    fieldsByPath,
    relations: relations(source, def, fieldsByPath),
    compositeIndexes: compositeIndexes(source, def.compositeIndex, fieldsByPath),
    softDelete: softDelete(source, def.softDelete),
    audit: flag(source, 'audit', def.audit, true),
    acl: acl(source, def.acl),
    stateMachines: Object.fromEntries(
      fields.filter((f) => f.stateMachine != null).map((f) => [f.name, f.stateMachine!])
    ),
    hooks: hooks(source, def.hooks),
    aggregations: compileAggregations(source, def.aggregations, { fieldsByPath }),
    webhooks: def.webhooks,
    schemas: undefined as unknown as ResourceModel['schemas'],
    definition: def
  }
  if (def.webhooks !== undefined && !isPlainObject(def.webhooks)) {
    throw new SchemaError(source, 'webhooks', 'must be { events, endpoints }')
  }
  model.schemas = buildSchemas(model)
  return { model, unknownKeys: Object.keys(def).filter((k) => !KNOWN_KEYS.has(k)) }
}

function indexFields (fields: FieldModel[], into = new Map<string, FieldModel>()): Map<string, FieldModel> {
  for (const f of fields) {
    into.set(f.path, f)
    const nested = f.kind === 'object' ? f.fields : f.items?.kind === 'object' ? f.items.fields : undefined
    if (nested != null) indexFields(nested, into)
  }
  return into
}

function singular (word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (/(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2)
  return word.endsWith('s') ? word.slice(0, -1) : word
}

function flag (source: string, key: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined) return dflt
  if (typeof v !== 'boolean') throw new SchemaError(source, key, 'must be a boolean')
  return v
}

function softDelete (source: string, v: unknown): ResourceModel['softDelete'] {
  if (v === undefined || typeof v === 'boolean') return { enabled: v ?? true }
  if (!isPlainObject(v)) throw new SchemaError(source, 'softDelete', 'must be a boolean or { retentionDays }')
  const days = v.retentionDays
  if (days !== undefined && (typeof days !== 'number' || !(days > 0))) {
    throw new SchemaError(source, 'softDelete.retentionDays', 'must be a positive number of days')
  }
  return days === undefined ? { enabled: true } : { enabled: true, retentionDays: days }
}

function roles (source: string, key: string, v: unknown): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v) || v.some((r) => typeof r !== 'string')) {
    throw new SchemaError(source, key, 'must be an array of role names')
  }
  return v
}

function acl (source: string, v: unknown): ResourceModel['acl'] {
  if (v === undefined) return { list: [], delete: [], scope: {} }
  if (!isPlainObject(v)) throw new SchemaError(source, 'acl', 'must be an object with list, delete, scope')
  const scope = v.scope ?? {}
  if (!isPlainObject(scope)) throw new SchemaError(source, 'acl.scope', 'must map client roles to filters')
  for (const [role, filter] of Object.entries(scope)) {
    if (!isPlainObject(filter)) throw new SchemaError(source, `acl.scope.${role}`, 'must be a filter object')
  }
  return {
    list: roles(source, 'acl.list', v.list),
    delete: roles(source, 'acl.delete', v.delete),
    scope: scope as Record<string, Record<string, unknown>>
  }
}

function hooks (source: string, v: unknown): ResourceModel['hooks'] {
  if (v === undefined) return {}
  if (!isPlainObject(v)) throw new SchemaError(source, 'hooks', 'must be an object of functions')
  for (const [name, fn] of Object.entries(v)) {
    if (!HOOK_NAMES.has(name)) {
      throw new SchemaError(source, `hooks.${name}`, `unknown hook (${[...HOOK_NAMES].join(', ')})`)
    }
    if (typeof fn !== 'function') throw new SchemaError(source, `hooks.${name}`, 'must be a function')
  }
  return v as ResourceModel['hooks']
}

function compositeIndexes (
  source: string,
  v: unknown,
  byPath: Map<string, FieldModel>
): ResourceModel['compositeIndexes'] {
  if (v === undefined) return []
  if (!Array.isArray(v)) throw new SchemaError(source, 'compositeIndex', 'must be an array of index specs')
  return v.map((spec, i) => {
    if (!isPlainObject(spec) || Object.keys(spec).length === 0) {
      throw new SchemaError(source, `compositeIndex[${i}]`, 'must be an index spec such as { userId: 1, email: 1 }')
    }
    for (const [k, dir] of Object.entries(spec)) {
      if (k !== 'userId' && k !== 'accountId' && !byPath.has(k)) {
        throw new SchemaError(source, `compositeIndex[${i}].${k}`, `unknown field '${k}'`)
      }
      if (dir !== 1 && dir !== -1) {
        throw new SchemaError(source, `compositeIndex[${i}].${k}`, 'direction must be 1 or -1')
      }
    }
    return spec as Record<string, 1 | -1>
  })
}

/** Relations are declared here; their targets are resolved by the registry (they may load later). */
function relations (
  source: string,
  def: SchemaDefinition,
  byPath: Map<string, FieldModel>
): Record<string, RelationModel> {
  const out: Record<string, RelationModel> = {}
  if (def.relations !== undefined && !isPlainObject(def.relations)) {
    throw new SchemaError(
      source,
      'relations',
      'must map relation names to { belongsTo | hasOne | hasMany, fk?, where? }'
    )
  }
  for (const [name, r] of Object.entries(def.relations ?? {})) {
    if (!isPlainObject(r)) throw new SchemaError(source, `relations.${name}`, 'must be an object')
    const kinds = (['belongsTo', 'hasOne', 'hasMany'] as const).filter((k) => r[k] !== undefined)
    if (kinds.length !== 1 || typeof r[kinds[0]] !== 'string') {
      throw new SchemaError(
        source,
        `relations.${name}`,
        'needs exactly one of belongsTo, hasOne, hasMany naming a target path'
      )
    }
    const kind = kinds[0]
    const target = r[kind] as string
    if (r.fk !== undefined && typeof r.fk !== 'string') {
      throw new SchemaError(source, `relations.${name}.fk`, 'must be a field name')
    }
    if (r.where !== undefined && !isPlainObject(r.where)) {
      throw new SchemaError(source, `relations.${name}.where`, 'must be a filter object')
    }
    const rel: RelationModel = {
      name,
      kind,
      target,
      fk: (r.fk as string | undefined) ?? '',
      ...(r.where !== undefined ? { where: r.where as Record<string, unknown> } : {})
    }
    if (r.fk === undefined) {
      // Spec default `<target>Id` first; then the singular forms people actually declare
      // (`companyId` for belongsTo 'companies'; for hasOne/hasMany the key points back here).
      rel.fkCandidates =
        kind === 'belongsTo'
          ? [`${target}Id`, `${singular(target)}Id`]
          : [`${target}Id`, `${def.path}Id`, `${singular(def.path)}Id`]
      rel.fk = rel.fkCandidates[0]
    }
    out[name] = rel
  }
  for (const f of byPath.values()) {
    // Legacy `reference` shorthand: `companyId: { reference: 'companies' }` is relation `company`.
    const name = f.name.endsWith('Id') && f.name.length > 2 ? f.name.slice(0, -2) : f.name
    if (f.reference !== undefined && out[name] === undefined && !f.path.includes('.')) {
      out[name] = { name, kind: 'belongsTo', target: f.reference, fk: f.name }
    }
  }
  return out
}
