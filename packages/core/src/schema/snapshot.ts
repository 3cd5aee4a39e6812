import { createHash } from 'node:crypto'
import type { FieldModel, ResourceModel } from './model.js'

/** One field as a snapshot keeps it: everything that decides what a stored value must be. */
export interface FieldSnapshot {
  name: string
  /** As the manifest writes it: `String`, `Number`, `date`, `Object`, `[String]`… */
  type: string
  required: boolean
  /** A JSON default; `{ $function: true }` for a function default (its code is not kept). */
  default?: unknown
  enum?: unknown[]
  min?: number
  lowercase?: true
  searchable?: true
  computed?: true
  states?: string[]
  readRoles?: string[]
  fields?: FieldSnapshot[]
  items?: FieldSnapshot
}

/** One served schema, JSON only: what `svc schema plan` compares the files with. */
export interface ResourceSnapshot {
  key: string
  version: string
  path: string
  collection: string
  softDelete: boolean
  audit: boolean
  fields: FieldSnapshot[]
  compositeIndexes: Array<Record<string, 1 | -1>>
  relations: string[]
  aggregations: string[]
}

export interface SchemaSnapshot {
  /** Bumped if the snapshot's shape ever changes, so an old one is read knowingly. */
  format: 1
  /** sha256 of the canonical JSON of `resources`. */
  hash: string
  resources: ResourceSnapshot[]
}

function jsonDefault (v: unknown): unknown {
  if (typeof v === 'function') return { $function: true }
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x instanceof Date ? x.toISOString() : x)))
}

export function snapshotField (f: FieldModel): FieldSnapshot {
  const out: FieldSnapshot = { name: f.name, type: f.typeName, required: f.required }
  if (f.default !== undefined) out.default = jsonDefault(f.default)
  // Arrays carry their element rules on `items` too: keep them once, there.
  if (f.enum !== undefined && f.kind !== 'array') out.enum = [...f.enum]
  if (f.min !== undefined && f.kind !== 'array') out.min = f.min
  if (f.lowercase && f.kind !== 'array') out.lowercase = true
  if (f.searchable) out.searchable = true
  if (f.computed !== undefined) out.computed = true
  if (f.stateMachine !== undefined) out.states = [...f.stateMachine.states]
  if (f.acl?.read !== undefined) out.readRoles = [...f.acl.read].sort()
  if (f.fields !== undefined) out.fields = f.fields.map(snapshotField)
  if (f.items !== undefined) out.items = snapshotField(f.items)
  return out
}

export function snapshotModel (model: ResourceModel): ResourceSnapshot {
  return {
    key: model.key,
    version: model.version,
    path: model.path,
    collection: model.collection,
    softDelete: model.softDelete.enabled,
    audit: model.audit,
    fields: model.fields.map(snapshotField),
    compositeIndexes: model.compositeIndexes.map((spec) => ({ ...spec })),
    relations: Object.keys(model.relations).sort(),
    aggregations: model.aggregations.map((a) => a.name).sort()
  }
}

/** The snapshot of every loaded schema, sorted by key so equal schemas hash equally. */
export function snapshotModels (models: readonly ResourceModel[]): SchemaSnapshot {
  const resources = models.map(snapshotModel).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const hash = createHash('sha256').update(JSON.stringify(resources)).digest('hex')
  return { format: 1, hash, resources }
}
