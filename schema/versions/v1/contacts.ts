// People at companies. `email` is lowercased on write and unique per tenant.
export default {
  path: 'contacts',
  collection: 'contacts',
  fields: [
    { name: 'firstName', type: String, required: true, searchable: true },
    { name: 'lastName', type: String, required: true, searchable: true },
    { name: 'email', type: String, required: true, lowercase: true },
    { name: 'phone', type: 'String' },
    { name: 'title', type: String },
    { name: 'companyId', type: String },
    { name: 'status', type: String, enum: ['lead', 'prospect', 'customer', 'churned'], default: 'lead' },
    { name: 'score', type: Number, min: 0, default: 0 },
    { name: 'marketingOptIn', type: Boolean, default: false },
    { name: 'birthday', type: 'Date' },
    { name: 'lastContactedAt', type: Date },
    { name: 'tags', type: '[String]' },
    { name: 'address', type: { street: String, city: String, country: String } },
    { name: 'customFields', type: 'Mixed' }
  ],
  relations: {
    company: { belongsTo: 'companies', fk: 'companyId' },
    deals: { hasMany: 'deals', fk: 'contactId' },
    notes: { hasMany: 'notes', fk: 'contactId' }
  },
  compositeIndex: [{ userId: 1, email: 1 }]
}
