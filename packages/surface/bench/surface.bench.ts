// What each part of @svc/surface costs on GET /api/v1/<path>/:id: core alone, core behind the
// plugin with every part off, with one part on at a time, and with what the reference server
// turns on. Database, servers and load generator run in separate processes; alternating rounds,
// medians; server CPU per request and its difference from core alone.
// Usage: pnpm --filter @svc/surface bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun } from '@svc/testkit/bench'

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_surface')
  const s = await processes.script<{ ports: Record<string, number>; cpu: number; id: string; token: string }>(
    new URL('./servers.ts', import.meta.url),
    [db.uri]
  )
  const headers = { authorization: `Bearer ${s.token}`, origin: 'https://app.example.test' }
  const results = await compareLoads(
    Object.entries(s.ports).map(([label, port]) => ({
      label,
      url: `http://127.0.0.1:${port}/api/v1/deals/${s.id}`,
      headers
    })),
    cpuFrom(`http://127.0.0.1:${s.cpu}/`)
  )
  console.log(`GET /api/v1/deals/:id — ${describeRun(db.label)}`)
  const [bare] = results
  for (const r of results) {
    const extra = r.cpuUs - bare.cpuUs
    console.log(
      `${r.label.padEnd(24)} ${r.rps.toFixed(0).padStart(6)} req/s   ratio ${(r.rps / bare.rps).toFixed(2)}   server CPU ${r.cpuUs.toFixed(0).padStart(4)} µs/request (${extra >= 0 ? '+' : ''}${extra.toFixed(0)} vs core alone)`
    )
  }
} finally {
  processes.stop()
}
