// Notes on contacts and deals: a JavaScript schema file, loaded exactly like the TypeScript ones.
export default {
  path: 'notes',
  collection: 'notes',
  fields: [
    { name: 'body', type: String, required: true, searchable: true },
    { name: 'contactId', type: String },
    { name: 'dealId', type: String },
    { name: 'pinned', type: Boolean, default: false },
    { name: 'mentions', type: [String] }
  ],
  relations: {
    contact: { belongsTo: 'contacts', fk: 'contactId' },
    deal: { belongsTo: 'deals', fk: 'dealId' }
  }
}
