// The next release: every deal has a region, and creates must send it.
export default {
  path: 'deals',
  collection: 'deals',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'amount', type: Number, min: 0 },
    { name: 'country', type: String },
    { name: 'region', type: String, required: true, enum: ['emea', 'americas', 'apac'] }
  ]
}
