// GET by id, a 20-item list, create and update through svc vs a hand-written raw-driver Fastify route on the
// same database (the same JWT check; writes commit the record with one audit row in both). Database, servers
// and load generator run in separate processes. Also prints the database commands one request of each issues.
// Usage: pnpm --filter @svc/core bench   (MONGODB_URI=… to use a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun, type Load } from '@svc/testkit/bench'
import { commandsPerRequest } from './commands.js'

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench')
  const { svcPort, rawPort, ids, token } = await processes.script<{
    svcPort: number
    rawPort: number
    ids: string[]
    token: string
  }>(new URL('./servers.ts', import.meta.url), [db.uri])
  const id = ids[100]
  const headers = { authorization: `Bearer ${token}` }
  const svc = `http://127.0.0.1:${svcPort}`
  const raw = `http://127.0.0.1:${rawPort}`
  console.log(describeRun(db.label))
  const json = { ...headers, 'content-type': 'application/json' }
  // Updates cycle over the 200 seeded records: a figure of the write path, not of ten writers contending for one record.
  const loads: Array<[string, string, string, string?, string?, string[]?]> = [
    ['GET /:id', `/api/v1/deals/${id}`, `/raw/deals/${id}`],
    ['GET list (20)', '/api/v1/deals', '/raw/deals'],
    ['POST create', '/api/v1/deals', '/raw/deals', 'POST', JSON.stringify({ title: 'bench deal', amount: 5 })],
    ['PUT update', '/api/v1/deals/', '/raw/deals/', 'PUT', JSON.stringify({ amount: 7 }), ids]
  ]
  const load = (label: string, base: string, path: string, method?: string, body?: string, each?: string[]): Load => ({
    label,
    url: base + path + (each?.[0] ?? ''),
    ...(method === undefined ? { headers } : { method, body, headers: json }),
    ...(each === undefined ? {} : { paths: each.map((x) => new URL(base + path + x).pathname) })
  })
  const pairs = loads.map(([label, svcPath, rawPath, method, body, each]) => ({
    label,
    pair: [load('svc', svc, svcPath, method, body, each), load('raw', raw, rawPath, method, body, each)]
  }))
  const commands = []
  for (const { pair } of pairs) {
    commands.push(
      `svc ${await commandsPerRequest(`${raw}/commands`, pair[0])}; raw ${await commandsPerRequest(`${raw}/commands`, pair[1])}`
    )
  }
  for (const [i, { label, pair }] of pairs.entries()) {
    const [s, r] = await compareLoads(pair, cpuFrom(`${raw}/cpu`))
    console.log(
      `${label.padEnd(14)} svc ${s.rps.toFixed(0).padStart(6)} req/s   raw ${r.rps.toFixed(0).padStart(6)} req/s   ratio ${(s.rps / r.rps).toFixed(2)}`
    )
    console.log(
      `${''.padEnd(14)} server CPU per request: svc ${s.cpuUs.toFixed(0)} µs, raw ${r.cpuUs.toFixed(0)} µs (raw/svc ${(r.cpuUs / s.cpuUs).toFixed(2)})`
    )
    console.log(`${''.padEnd(14)} database commands per request: ${commands[i]}`)
  }
} finally {
  processes.stop()
}
