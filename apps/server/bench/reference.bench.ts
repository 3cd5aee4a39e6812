/**
 * `pnpm --filter @svc/server bench:reference`: what the outside benchmark measures — the reference
 * server as `svc start` runs it (compiled, every plugin and the whole surface: security headers,
 * CORS, load shedding, rate limits; NODE_ENV=production with its default settings, access lines
 * included) against a hand-written Fastify route (the same JWT check and driver query; writes
 * commit the audit row @svc/audit writes, in the same transaction) on the same devdb, a separate
 * process. The one setting a benchmark must change: the rate limits are raised so one tenant's
 * load is not refused (they are still counted). GET by id, a list of 20 with its total and create, in
 * alternating rounds; req/s, each server process's CPU µs per request and the database's (from /proc).
 * Goals (issue 23): GET ≥ 0.9×, list-20 ≥ 0.85×, create ≥ 0.8×.
 * BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS as in @svc/testkit/bench; BENCH_DEVELOPMENT=1 runs
 * serve.ts's development settings instead (metrics on, access lines off).
 */
import { loadavg } from 'node:os'
import { BenchProcesses, compareLoads, describeRun, type Load } from '@svc/testkit/bench'
import { cpuOf, headers, seed, serve } from './serve.js'

const production = process.env.BENCH_DEVELOPMENT !== '1'
const server = await serve({ external: true, production })
const processes = new BenchProcesses()
try {
  const ids = await seed(server.url, 200)
  const raw = await processes.script<{ rawPort: number; pid: number }>(new URL('./raw-server.ts', import.meta.url), [
    `${server.dbServer!}/svc`
  ])
  const rawUrl = `http://127.0.0.1:${raw.rawPort}`
  const id = ids[100]
  const dbCpu = async (): Promise<number> => cpuOf(server.dbPid!)
  const create = { method: 'POST', headers, body: JSON.stringify({ title: 'bench note', n: 5 }) }
  const cases: Array<[string, string, Partial<Load>?]> = [
    ['GET /:id', `/notes/${id}`],
    ['GET list (20)', '/notes'],
    ['POST create', '/notes', create]
  ]
  console.log(describeRun('@svc/devdb (child process)'))
  console.log(
    `svc: ${production ? 'NODE_ENV=production, default settings' : 'development (metrics on, LOG_LEVEL=warn)'}`
  )
  for (const [label, path, extra] of cases) {
    const [s, r] = await compareLoads([
      {
        label: 'svc',
        url: `${server.url}/api/v1${path}`,
        headers,
        ...extra,
        cpu: async () => cpuOf(server.pid),
        dbCpu
      },
      { label: 'raw', url: `${rawUrl}/raw${path}`, headers, ...extra, cpu: async () => cpuOf(raw.pid), dbCpu }
    ])
    console.log(
      `${label.padEnd(14)} svc ${s.rps.toFixed(0).padStart(6)} req/s   raw ${r.rps.toFixed(0).padStart(6)} req/s   ratio ${(s.rps / r.rps).toFixed(2)}`
    )
    console.log(
      `${''.padEnd(14)} server CPU per request: svc ${s.cpuUs.toFixed(0)} µs, raw ${r.cpuUs.toFixed(0)} µs (raw/svc ${(r.cpuUs / s.cpuUs).toFixed(2)})   load ${loadavg()[0].toFixed(2)}`
    )
    console.log(
      `${''.padEnd(14)} database CPU per request: svc ${s.dbCpuUs.toFixed(0)} µs, raw ${r.dbCpuUs.toFixed(0)} µs`
    )
  }
} finally {
  processes.stop()
  await server.stop()
}
