/** The parts of `GET /_describe` (core's manifest) the generator reads. */
export interface DescribedField {
  name: string
  /** `String`, `Number`, `Boolean`, `date`, `Mixed`, `File`, `Object`, `[String]`, `[Object]`… */
  type: string
  required: boolean
  enum?: unknown[]
  default?: unknown
  computed?: boolean
  stamped?: boolean
  acl?: { read?: string[]; create?: string[]; update?: string[] }
  fields?: DescribedField[]
}

export interface DescribedSchema {
  version: string
  path: string
  softDelete: boolean
  audit: boolean
  fields: DescribedField[]
  relations: Record<string, { kind: 'belongsTo' | 'hasOne' | 'hasMany'; target: string; fk: string }>
  aggregations: Array<{
    name: string
    description?: string
    params: Array<{ name: string; type: string; required: boolean }>
  }>
  stateMachines: Record<string, { initial: string; states: string[]; transitions: Record<string, string[]> }>
  fileFields: string[]
  /** `realtime`: the schema's events on the realtime feed (`@svc/realtime`). */
  endpoints: { rest: Array<{ method: string; path: string }>; realtime?: { events: string[]; stream: string } }
}

export interface DescribeDocument {
  version: string
  schemas: DescribedSchema[]
}
