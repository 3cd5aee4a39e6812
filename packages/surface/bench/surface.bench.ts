// Overhead of @svc/surface on GET /api/v1/<path>/:id: core alone vs core behind metrics + rate
// limits + CORS (and vs everything the reference server turns on). Database, servers and load
// generator run in separate processes; alternating rounds, medians.
// Usage: pnpm --filter @svc/surface bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun } from '@svc/testkit/bench'

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_surface')
  const s = await processes.script<Record<'bare' | 'measured' | 'full' | 'cpu', number> & { id: string, token: string }>(new URL('./servers.ts', import.meta.url), [db.uri])
  const headers = { authorization: `Bearer ${s.token}`, origin: 'https://app.example.test' }
  const url = (port: number): string => `http://127.0.0.1:${port}/api/v1/deals/${s.id}`
  const results = await compareLoads([
    { label: 'bare', url: url(s.bare), headers },
    { label: 'metrics+limits+cors', url: url(s.measured), headers },
    { label: 'all of @svc/surface', url: url(s.full), headers }
  ], cpuFrom(`http://127.0.0.1:${s.cpu}/`))
  console.log(`GET /api/v1/deals/:id — ${describeRun(db.label)}`)
  for (const r of results) console.log(`${r.label.padEnd(22)} ${r.rps.toFixed(0).padStart(6)} req/s   ratio ${(r.rps / results[0].rps).toFixed(2)}   server CPU ${r.cpuUs.toFixed(0)} µs/request`)
} finally {
  processes.stop()
}
