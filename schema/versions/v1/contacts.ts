// People at companies. `email` is lowercased on write and unique per tenant.
const PHONE = /^[0-9+() .-]{3,32}$/

function tidy (input: Record<string, unknown>): Record<string, unknown> {
  for (const k of ['firstName', 'lastName']) if (typeof input[k] === 'string') input[k] = input[k].trim()
  if (typeof input.phone === 'string') {
    // A schema file cannot import the error classes: an Error with a statusCode and code works the same.
    if (!PHONE.test(input.phone)) {
      throw Object.assign(new Error('phone may only contain digits, spaces and + ( ) . -'), {
        statusCode: 400,
        code: 'VALIDATION',
        details: { field: 'phone' }
      })
    }
    input.phone = input.phone.replace(/\s+/g, ' ').trim()
  }
  return input
}

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
    { name: 'customFields', type: 'Mixed' },
    // Derived on every read, never stored; sending it is 400.
    {
      name: 'fullName',
      type: String,
      computed: (r: Record<string, unknown>) => [r.firstName, r.lastName].filter(Boolean).join(' ')
    },
    // Field ACL: only managers and admins see or write it; others get it stripped (and 403 on write).
    {
      name: 'internalNotes',
      type: String,
      acl: { read: ['admin', 'manager'], create: ['admin', 'manager'], update: ['admin', 'manager'] }
    },
    // A file field (@svc/files): POST /api/v1/contacts/:id/avatar (multipart, part `file`), GET, DELETE.
    // Public: a stable URL anyone may load; PNG/JPEG/WebP by their magic bytes, at most 2 MB.
    {
      name: 'avatar',
      type: 'File',
      file: { maxBytes: 2 * 1024 * 1024, accept: ['image/png', 'image/jpeg', 'image/webp'], visibility: 'public' }
    }
  ],
  // Lifecycle hooks: tidy the input after ACL checks and tenant stamping; a throw with a
  // statusCode is answered with that status (here 400 VALIDATION naming the field).
  hooks: {
    beforeCreate: ({ input }: { input: Record<string, unknown> }) => tidy(input),
    beforeUpdate: ({ input }: { input: Record<string, unknown> }) => tidy(input)
  },
  relations: {
    company: { belongsTo: 'companies', fk: 'companyId' },
    deals: { hasMany: 'deals', fk: 'contactId' },
    notes: { hasMany: 'notes', fk: 'contactId' }
  },
  compositeIndex: [{ userId: 1, email: 1 }]
}
