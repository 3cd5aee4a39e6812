// Sales opportunities with line items (an array of sub-documents) and free-form metadata.
export default {
  path: 'deals',
  collection: 'deals',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'amount', type: Number, required: true, min: 0 },
    { name: 'currency', type: String, enum: ['USD', 'EUR', 'GBP'], default: 'USD' },
    {
      name: 'stage',
      type: String,
      enum: ['prospecting', 'qualified', 'proposal', 'negotiation', 'won', 'lost'],
      default: 'prospecting'
    },
    { name: 'probability', type: Number, min: 0 },
    { name: 'closeDate', type: Date },
    { name: 'companyId', type: String },
    { name: 'contactId', type: String },
    {
      name: 'lineItems',
      type: [
        {
          sku: { type: String, required: true },
          quantity: { type: Number, min: 1, default: 1 },
          unitPrice: { type: Number, min: 0 }
        }
      ]
    },
    { name: 'metadata', type: 'Mixed' },
    // The signed contract: a private PDF (GET /api/v1/deals/:id/contract answers a link valid ~5 minutes).
    { name: 'contract', type: 'File', file: { accept: ['application/pdf'], visibility: 'private' } },
    // A state machine: new deals start in `draft`; PUT /deals/:id { approval } moves it along the
    // table (400 INVALID_TRANSITION otherwise), reads carry `availableTransitions`.
    {
      name: 'approval',
      type: String,
      stateMachine: {
        initial: 'draft',
        states: ['draft', 'submitted', 'approved', 'rejected'],
        transitions: { draft: ['submitted'], submitted: ['approved', 'rejected'], rejected: ['draft'], approved: [] },
        // Best-effort side effect after the transition is stored; a throw here is logged, never surfaced.
        onEnter: {
          approved: ({
            record,
            req
          }: {
            record: { _id: string }
            req?: { log: { info: (o: object, m: string) => void } }
          }) => {
            req?.log.info({ dealId: record._id }, 'deal approved')
          }
        }
      }
    }
  ],
  relations: {
    company: { belongsTo: 'companies', fk: 'companyId' },
    contact: { belongsTo: 'contacts', fk: 'contactId' },
    tasks: { hasMany: 'tasks', fk: 'dealId' }
  },
  // GET /api/v1/deals/aggregations/byStage?minAmount=1000&closingAfter=2024-01-01 → { results: [...] }.
  // Params are typed and substituted as values; the caller's userId $match always comes first.
  aggregations: [
    {
      name: 'byStage',
      description: 'Deal count and total amount per stage',
      pipeline: [
        { $group: { _id: '$stage', count: { $sum: 1 }, total: { $sum: '$amount' } } },
        { $sort: { total: -1, _id: 1 } }
      ],
      params: [
        { name: 'minAmount', type: Number, match: { amount: { $gte: '$minAmount' } } },
        { name: 'closingAfter', type: Date, match: { closeDate: { $gte: '$closingAfter' } } }
      ],
      cache: { ttlSeconds: 30 }
    }
  ]
}
