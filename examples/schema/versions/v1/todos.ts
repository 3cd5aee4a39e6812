import { defineSchema } from '@svc/core'

export default defineSchema({
  path: 'todos',
  collection: 'todos',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'done', type: Boolean, default: false }
  ]
})
