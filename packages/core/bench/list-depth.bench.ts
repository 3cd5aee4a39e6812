// Lists flat in depth: list-20 at the first page vs at record 50,000 of 100,000 by cursor (and
// by __page, the offset walk it replaces), and the first page counted vs `__count=false`.
// Usage: pnpm --filter @svc/core bench:depth   (BENCH_RECORDS, BENCH_SECONDS, BENCH_ROUNDS, MONGODB_URI)
import { BenchProcesses, compareLoads, cpuFrom, describeRun } from '@svc/testkit/bench'
import { commandsPerRequest, databaseCpu } from './commands.js'

const records = Number(process.env.BENCH_RECORDS ?? 100_000)
const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_depth')
  const {
    svcPort: port,
    token,
    cursor,
    page
  } = await processes.script<{ svcPort: number; token: string; cursor: string; page: number }>(
    new URL('./list-depth-server.ts', import.meta.url),
    [db.uri, String(records)]
  )
  const headers = { authorization: `Bearer ${token}` }
  const url = (q: string): string => `http://127.0.0.1:${port}/api/v1/deals?${q}`
  console.log(describeRun(db.label) + `; ${records} records of one tenant`)
  const loads = [
    { label: 'first page, __count=false', url: url('__count=false'), headers },
    { label: 'first page, counted', url: url(''), headers },
    { label: `by cursor at ${page * 20}`, url: url(`__count=false&__cursor=${encodeURIComponent(cursor)}`), headers },
    { label: `__page=${page + 1}`, url: url(`__count=false&__page=${page + 1}`), headers }
  ]
  const commands = []
  for (const l of loads) commands.push(await commandsPerRequest(`http://127.0.0.1:${port}/commands`, l))
  // CPU per request of svc and, when it runs here, of the database too: a count's cost is mostly the database's.
  const svcCpu = cpuFrom(`http://127.0.0.1:${port}/cpu`)
  const dbCpu = await databaseCpu(db.uri)
  const cpuLabel = dbCpu === undefined ? 'svc' : 'svc+db'
  const measured = await compareLoads(
    loads,
    dbCpu === undefined ? svcCpu : async () => (await svcCpu()) + (await dbCpu())
  )
  const [first, firstCounted, deep] = measured
  for (const [i, m] of measured.entries()) {
    console.log(
      `${m.label.padEnd(28)} ${m.rps.toFixed(0).padStart(7)} req/s   ${m.cpuUs.toFixed(0).padStart(7)} µs ${cpuLabel} CPU/request   commands: ${commands[i]}`
    )
  }
  console.log(`cursor at depth / first page: ${(first.rps / deep.rps).toFixed(2)}× slower (goal ≤ 1.3)`)
  console.log(
    `__count=false / counted:      ${(first.rps / firstCounted.rps).toFixed(2)}× (goal ≥ 1.8); by ${cpuLabel} CPU ${(firstCounted.cpuUs / first.cpuUs).toFixed(2)}×`
  )
} finally {
  processes.stop()
}
