// A tenant's catalogue, readable by api clients with role `storefront` (CONTRACT "Api clients"):
// `svc clients create --role storefront --owner <user id>` is one tenant's shop (its published
// products only); without `--owner` the client lists every tenant's published products.
export default {
  path: 'products',
  collection: 'products',
  fields: [
    { name: 'name', type: String, required: true, searchable: true },
    { name: 'description', type: String, searchable: true },
    { name: 'price', type: Number, required: true, min: 0 },
    { name: 'published', type: Boolean, default: false },
    // Field ACL applies to a client's role too: storefront clients never see what a product costs.
    { name: 'cost', type: Number, min: 0, acl: { read: ['user', 'admin'] } }
  ],
  acl: { scope: { storefront: { published: true } } }
}
