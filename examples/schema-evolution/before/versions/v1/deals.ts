// The deals schema a database has been served with: no region yet.
export default {
  path: 'deals',
  collection: 'deals',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'amount', type: Number, min: 0 },
    { name: 'country', type: String }
  ]
}
