/**
 * The two ways @svc/core commits writes with durable effects (its `transactions` option), for
 * tests that must hold on both: write-ahead intents (`false`, as on a standalone server) and
 * transactions (`'auto'`: on, as every test server testkit picks is a replica set — devdb by
 * default, Docker's `mongo:7` — unless `MONGODB_URI` names a standalone).
 */
export const DURABLE_MODES = [
  { name: 'intents', transactions: false },
  { name: 'transactions', transactions: 'auto' }
] as const
