// Sales opportunities with line items (an array of sub-documents) and free-form metadata.
export default {
  path: 'deals',
  collection: 'deals',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'amount', type: Number, required: true, min: 0 },
    { name: 'currency', type: String, enum: ['USD', 'EUR', 'GBP'], default: 'USD' },
    { name: 'stage', type: String, enum: ['prospecting', 'qualified', 'proposal', 'negotiation', 'won', 'lost'], default: 'prospecting' },
    { name: 'probability', type: Number, min: 0 },
    { name: 'closeDate', type: Date },
    { name: 'companyId', type: String },
    { name: 'contactId', type: String },
    { name: 'lineItems', type: [{ sku: { type: String, required: true }, quantity: { type: Number, min: 1, default: 1 }, unitPrice: { type: Number, min: 0 } }] },
    { name: 'metadata', type: 'Mixed' }
  ],
  relations: {
    company: { belongsTo: 'companies', fk: 'companyId' },
    contact: { belongsTo: 'contacts', fk: 'contactId' },
    tasks: { hasMany: 'tasks', fk: 'dealId' }
  }
}
