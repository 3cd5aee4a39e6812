import type { TSchema } from '@sinclair/typebox'
import type { AggregationModel } from './aggregations.js'
import type { FieldAcl, SchemaDefinition, StateMachineDefinition } from './define.js'
import type { FieldKind } from '../values/kinds.js'

export type { FieldKind }

/** One normalized field. Nested sub-schemas have `fields`; arrays have `items` (a nameless field). */
export interface FieldModel {
  name: string
  /** Dotted path from the record root (`address.city`); array items share their array's path. */
  path: string
  kind: FieldKind
  /** Type as the manifest writes it (`String`, `Number`, `Boolean`, `date`, `Mixed`, `File`, `Object`, `[String]`). */
  typeName: string
  required: boolean
  default?: unknown
  enum?: readonly unknown[]
  min?: number
  lowercase: boolean
  searchable: boolean
  computed?: (record: Record<string, unknown>) => unknown
  reference?: string
  stateMachine?: StateMachineDefinition
  /** Set on every `File` field, defaults filled in. */
  file?: FileFieldOptions
  acl?: FieldAcl
  fields?: FieldModel[]
  items?: FieldModel
}

/** A File field's options after loading (spec "File field options"). */
export interface FileFieldOptions {
  /** Upload size limit in bytes; default 10 MB. */
  maxBytes: number
  /** Allowed MIME types (lower case; `image/*` allows a whole type); absent, any type. */
  accept?: string[]
  storage: 'local' | 's3'
  visibility: 'private' | 'public'
}

export interface RelationModel {
  name: string
  kind: 'belongsTo' | 'hasOne' | 'hasMany'
  /** Target schema `path` (same version). */
  target: string
  /** belongsTo: field on this schema; hasOne/hasMany: field on the target. */
  fk: string
  /** Set when `fk` was not declared: the default names tried in order (the registry picks the first declared one). */
  fkCandidates?: string[]
  where?: Record<string, unknown>
}

/** Generated TypeBox schemas: route validation now, Swagger/GraphQL/MCP/client later. */
export interface ResourceSchemas {
  create: TSchema
  update: TSchema
  read: TSchema
  listQuery: TSchema
  list: TSchema
  params: TSchema
  /** Query options of GET by id. */
  getQuery: TSchema
  bulk: TSchema
  bulkResult: TSchema
}

/** The normalized, validated form of one schema file: the single source for every surface. */
export interface ResourceModel {
  /** `<version>/<path>` — registry key. */
  key: string
  version: string
  path: string
  collection: string
  /** Where it came from (file path, or `opts.schemas[i]`), for error messages. */
  source: string
  fields: FieldModel[]
  /** Every declared field by dotted path, nested ones included. */
  fieldsByPath: Map<string, FieldModel>
  relations: Record<string, RelationModel>
  compositeIndexes: Array<Record<string, 1 | -1>>
  softDelete: { enabled: boolean; retentionDays?: number }
  audit: boolean
  acl: { list: string[]; delete: string[]; scope: Record<string, Record<string, unknown>> }
  stateMachines: Record<string, StateMachineDefinition>
  hooks: Record<string, (arg: any) => unknown>
  /** Compiled at load: forbidden stages refused, param templates ready to substitute. */
  aggregations: AggregationModel[]
  webhooks?: SchemaDefinition['webhooks']
  schemas: ResourceSchemas
  /** The schema file's own object (hooks receive it as `schema`). */
  definition: SchemaDefinition
}

/** Stamped and managed by the service; never accepted from clients. */
export const SYSTEM_FIELDS = ['_id', 'userId', 'accountId', 'createdAt', 'updatedAt', 'deletedAt'] as const
export const SYSTEM_FIELD_SET: ReadonlySet<string> = new Set(SYSTEM_FIELDS)
