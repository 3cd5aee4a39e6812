import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client'

/**
 * prom-client's totals of live handles, requests and resources are gauges named `*_total`, a
 * suffix Prometheus keeps for counters (`promtool check metrics` exits 3). They move to `*_all`,
 * read through prom-client's own collectors; the by-type gauges (`nodejs_active_handles{type}`…)
 * stay as they are.
 */
export const RENAMED_RUNTIME_GAUGES: Record<string, string> = {
  nodejs_active_handles_total: 'nodejs_active_handles_all',
  nodejs_active_requests_total: 'nodejs_active_requests_all',
  nodejs_active_resources_total: 'nodejs_active_resources_all'
}

/** Node.js and process metrics (prom-client's defaults), every name valid under promtool's lint. */
export function collectRuntimeMetrics (register: Registry): void {
  collectDefaultMetrics({ register })
  for (const [from, to] of Object.entries(RENAMED_RUNTIME_GAUGES)) {
    const original = register.getSingleMetric(from) as Gauge | undefined
    // Each exists only where Node has the API behind it (getActiveResourcesInfo since 17.3).
    if (original === undefined) continue
    register.removeSingleMetric(from)
    register.registerMetric(
      new Gauge({
        name: to,
        help: (original as unknown as { help: string }).help,
        registers: [],
        async collect () {
          const { values } = await original.get()
          this.set(values[0]?.value ?? 0)
        }
      })
    )
  }
}
