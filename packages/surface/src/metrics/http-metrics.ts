import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, type Registry } from 'prom-client'
import { DURATION_BUCKETS, UNMATCHED_ROUTE } from './labels.js'
import { collectRuntimeMetrics } from './runtime-metrics.js'

const LABELS = ['method', 'route', 'status_code'] as const

/**
 * Default runtime metrics plus `http_requests_total` and `http_request_duration_seconds`, recorded
 * in one `onResponse` hook on the root instance: every route registered afterwards (REST, GraphQL,
 * MCP, files) and the not-found handler are counted without knowing about them.
 */
export function installHttpMetrics (app: FastifyInstance, register: Registry): void {
  collectRuntimeMetrics(register)
  const total = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: LABELS,
    registers: [register]
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds',
    labelNames: LABELS,
    buckets: DURATION_BUCKETS,
    registers: [register]
  })
  // Labelled children per (method, route, status): bounded by the route table, and it spares
  // prom-client hashing a label object on every request (the hot path of this hook).
  const series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>()
  app.addHook('onResponse', async (request, reply) => {
    // The matched template (`/api/v1/contacts/:id`); undefined for the not-found handler.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE
    const key = `${request.method} ${reply.statusCode} ${route}`
    let s = series.get(key)
    if (s === undefined) {
      const labels = { method: request.method, route, status_code: String(reply.statusCode) }
      s = { count: total.labels(labels), time: duration.labels(labels) }
      series.set(key, s)
    }
    s.count.inc()
    s.time.observe(reply.elapsedTime / 1000)
  })
}
