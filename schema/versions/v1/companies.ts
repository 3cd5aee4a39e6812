// Companies a tenant sells to. Plain object export: `defineSchema` from @svc/core only adds types.
export default {
  path: 'companies',
  collection: 'companies',
  fields: [
    { name: 'name', type: String, required: true, searchable: true },
    { name: 'domain', type: String, lowercase: true },
    {
      name: 'industry',
      type: String,
      enum: ['software', 'finance', 'retail', 'manufacturing', 'healthcare', 'other'],
      default: 'other'
    },
    { name: 'employees', type: Number, min: 0 },
    { name: 'website', type: String },
    {
      name: 'address',
      type: {
        street: String,
        city: { type: String, required: true },
        postalCode: String,
        country: { type: String, default: 'US' }
      }
    },
    { name: 'tags', type: [String] },
    { name: 'foundedAt', type: Date }
  ],
  relations: {
    contacts: { hasMany: 'contacts', fk: 'companyId' },
    deals: { hasMany: 'deals', fk: 'companyId' }
  },
  // Unique per tenant: two tenants may both have an "Acme".
  compositeIndex: [{ userId: 1, name: 1 }]
}
