// A type-only import: checked by tsc, erased at run time, so loading the schema never loads
// @svc/core a second time (`defineSchema` works too; it is an identity function).
import type { SchemaDefinition } from '@svc/core'

export default {
  path: 'todos',
  collection: 'todos',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'done', type: Boolean, default: false }
  ]
} satisfies SchemaDefinition
