// What the benchmark server and its load generators share.
export const BENCH_SECRET = 'realtime-bench-secret-0123456789abcdef'
export const BENCH_SCHEMAS = [
  { path: 'notes', softDelete: false, audit: false, fields: [{ name: 'text', type: String }] }
]
