// The parts of `GET /_describe` the console reads, beyond what the typed client's generator needs.
import type { DescribedField, DescribedSchema } from '@svc/client/generate'

export interface Field extends DescribedField {
  min?: number
  lowercase?: boolean
  searchable?: boolean
  file?: { maxBytes: number; accept?: string[]; visibility: 'private' | 'public'; storage: string }
  fields?: Field[]
}

export interface Aggregation {
  name: string
  description?: string
  params: Array<{ name: string; type: string; required: boolean }>
  unsafe?: boolean
}

export interface Schema extends Omit<DescribedSchema, 'fields' | 'aggregations'> {
  collection: string
  fields: Field[]
  aggregations: Aggregation[]
  acl: { list: string[]; delete: string[] }
}

export interface Describe {
  version: string
  features: Record<string, boolean>
  schemas: Schema[]
  auth: { endpoints: Record<string, string>; tokenTtl: number }
}
