// GET by id, a 20-item list, create and update through svc vs a hand-written raw-driver Fastify route on the
// same database. Database, servers and load generator run in separate processes.
// Usage: pnpm --filter @svc/core bench   (MONGODB_URI=… to use a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun } from '@svc/testkit/bench'

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench')
  const { svcPort, rawPort, id, token } = await processes.script<{ svcPort: number, rawPort: number, id: string, token: string }>(new URL('./servers.ts', import.meta.url), [db.uri])
  const headers = { authorization: `Bearer ${token}` }
  const svc = `http://127.0.0.1:${svcPort}`
  const raw = `http://127.0.0.1:${rawPort}`
  console.log(describeRun(db.label))
  const json = { ...headers, 'content-type': 'application/json' }
  const loads: Array<[string, string, string, string?, string?]> = [
    ['GET /:id', `/api/v1/deals/${id}`, `/raw/deals/${id}`],
    ['GET list (20)', '/api/v1/deals', '/raw/deals'],
    ['POST create', '/api/v1/deals', '/raw/deals', 'POST', JSON.stringify({ title: 'bench deal', amount: 5 })],
    ['PUT update', `/api/v1/deals/${id}`, `/raw/deals/${id}`, 'PUT', JSON.stringify({ amount: 7 })]
  ]
  for (const [label, svcPath, rawPath, method, body] of loads) {
    const request = method === undefined ? { headers } : { method, body, headers: json }
    const [s, r] = await compareLoads([{ label: 'svc', url: svc + svcPath, ...request }, { label: 'raw', url: raw + rawPath, ...request }], cpuFrom(`${raw}/cpu`))
    console.log(`${label.padEnd(14)} svc ${s.rps.toFixed(0).padStart(6)} req/s   raw ${r.rps.toFixed(0).padStart(6)} req/s   ratio ${(s.rps / r.rps).toFixed(2)}`)
    console.log(`${''.padEnd(14)} server CPU per request: svc ${s.cpuUs.toFixed(0)} µs, raw ${r.cpuUs.toFixed(0)} µs (raw/svc ${(r.cpuUs / s.cpuUs).toFixed(2)})`)
  }
} finally {
  processes.stop()
}
