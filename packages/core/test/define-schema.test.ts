import t from 'tap'
import { defineSchema } from '../src/index.js'
import { loadRegistry } from '../src/kit.js'

// Type-checked by `tsc -p packages/core/tsconfig.json`: every authoring form must be accepted.
const deals = defineSchema({
  path: 'deals',
  collection: 'deals',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'amount', type: Number, min: 0, default: 0 },
    { name: 'won', type: Boolean },
    { name: 'closeDate', type: Date },
    { name: 'kind', type: 'String', enum: ['new', 'renewal'] },
    { name: 'tags', type: [String], lowercase: true },
    { name: 'labels', type: '[String]' },
    { name: 'meta', type: 'Mixed' },
    { name: 'contract', type: 'File', file: { maxBytes: 1024, accept: ['application/pdf'], visibility: 'private' } },
    { name: 'address', type: { city: { type: String, required: true }, zip: String } },
    { name: 'lines', type: [{ sku: { type: String, required: true }, qty: Number }] },
    {
      name: 'stage',
      type: String,
      stateMachine: {
        initial: 'open',
        states: ['open', 'won', 'lost'],
        transitions: { open: ['won', 'lost'], won: [], lost: [] }
      }
    },
    { name: 'margin', type: Number, computed: (r) => Number(r.amount) * 0.2 },
    { name: 'secret', type: String, acl: { read: ['admin'], update: ['admin'] } },
    { name: 'ownerId', type: String, reference: 'deals' }
  ],
  relations: { owner: { belongsTo: 'deals', fk: 'ownerId' } },
  compositeIndex: [{ userId: 1, title: 1 }],
  softDelete: { retentionDays: 30 },
  audit: true,
  acl: { list: ['admin'], delete: ['admin'], scope: { public: { kind: 'new' } } },
  hooks: { beforeCreate: ({ input }) => input },
  version: 'v1'
})

t.test('defineSchema is the identity and its result loads', async (t) => {
  t.equal(defineSchema(deals), deals)
  const registry = await loadRegistry({ schemas: [deals] })
  const m = registry.get('v1', 'deals')!
  t.equal(m.fields.length, 15)
  t.same(m.softDelete, { enabled: true, retentionDays: 30 })
  t.same(Object.keys(m.stateMachines), ['stage'])
  t.same(m.acl.list, ['admin'])
  t.notOk(
    'margin' in (m.schemas.create as unknown as { properties: object }).properties,
    'computed fields are not writable'
  )
  t.notOk(
    'contract' in (m.schemas.create as unknown as { properties: object }).properties,
    'File fields belong to the file routes'
  )
})
