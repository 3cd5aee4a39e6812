/**
 * The authoring shape of a schema file (CONTRACT.md "Schema files"). Everything here is
 * types only: `defineSchema` returns its argument, so a plain object loads the same way.
 */
export type ScalarTypeName = 'String' | 'Number' | 'Boolean' | 'Date' | 'Mixed' | 'File'
export type TypeCtor = StringConstructor | NumberConstructor | BooleanConstructor | DateConstructor

/** A nested sub-schema: a map of name → type or field options (mongoose style). */
export interface SubSchema {
  [name: string]: FieldType | FieldOptions
}

export type FieldType =
  | TypeCtor
  | ScalarTypeName
  | '[String]'
  | '[Number]'
  | '[Boolean]'
  | '[Date]'
  | '[Mixed]'
  | [TypeCtor | ScalarTypeName | SubSchema]
  | SubSchema

export interface StateMachineDefinition {
  initial: string
  states: string[]
  transitions: Record<string, string[]>
  onEnter?: Record<string, (arg: Record<string, unknown>) => unknown>
}

export interface FileOptions {
  maxBytes?: number
  accept?: string[]
  storage?: 'local' | 's3'
  visibility?: 'private' | 'public'
}

export interface FieldAcl {
  read?: string[]
  create?: string[]
  update?: string[]
}

export interface FieldOptions {
  type: FieldType
  required?: boolean
  default?: unknown
  enum?: readonly unknown[]
  min?: number
  lowercase?: boolean
  searchable?: boolean
  computed?: (record: Record<string, unknown>) => unknown
  reference?: string
  stateMachine?: StateMachineDefinition
  file?: FileOptions
  acl?: FieldAcl
}

export interface FieldDefinition extends FieldOptions {
  name: string
}

export interface RelationDefinition {
  belongsTo?: string
  hasOne?: string
  hasMany?: string
  fk?: string
  where?: Record<string, unknown>
}

export interface SchemaAcl {
  list?: string[]
  delete?: string[]
  /** Anonymous apiClient roles → the filter their reads are restricted to. */
  scope?: Record<string, Record<string, unknown>>
}

export interface SchemaDefinition {
  path: string
  collection?: string
  fields: FieldDefinition[]
  relations?: Record<string, RelationDefinition>
  aggregations?: Array<Record<string, unknown>>
  compositeIndex?: Array<Record<string, 1 | -1>>
  softDelete?: boolean | { retentionDays?: number }
  audit?: boolean
  acl?: SchemaAcl
  webhooks?: { events?: string[]; endpoints?: Array<{ url: string; secret: string }> }
  hooks?: Record<string, (arg: any) => unknown>
  version?: string
  [unknownKey: string]: unknown
}

/** Identity helper for typed schema files: `export default defineSchema({ ... })`. */
export function defineSchema<const T extends SchemaDefinition> (schema: T): T {
  return schema
}
