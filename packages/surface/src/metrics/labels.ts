// Kept apart from http-metrics.ts so exporting them does not load prom-client.

/** The `route` label of requests no route matched: raw URLs never become label values (series stay bounded). */
export const UNMATCHED_ROUTE = '__unmatched__'

/** Sub-second resolution where most requests fall, up to the 5 s the spec asks for. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
