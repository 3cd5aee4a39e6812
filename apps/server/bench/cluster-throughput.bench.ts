/**
 * `pnpm --filter @svc/server bench:cluster`: GET-by-id and list throughput of the real `svc start`
 * with SVC_WORKERS=1 and SVC_WORKERS=2 (each with its embedded database, NODE_ENV=test so rate
 * limits are off). Both servers run at once and the four loads alternate round by round, so a
 * machine busy with other work skews each side alike; autocannon's connections are spread over
 * the workers by the cluster primary. Besides req/s it prints the CPU time per request of each
 * server's whole process tree (primary with the embedded database, workers), read from /proc: steadier than req/s on
 * a shared machine. BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS as in @svc/testkit/bench.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchSettings, compareLoads, describeRun } from '@svc/testkit/bench'
import { signToken } from '@svc/testkit'

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const SECRET = 'bench-secret-0123456789abcdef0123456789'
const auth = {
  authorization: `Bearer ${signToken({ user_id: '65f0000000000000000000e1', email: 'b@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })}`
}
/** /proc/<pid>/stat counts CPU time in clock ticks; USER_HZ is 100 on Linux. */
const TICK_US = 10_000

/**
 * CPU µs (user + system) used so far by `root` itself and by its live descendants (the workers;
 * the embedded database runs inside the root: the single server, or the cluster's primary).
 */
function treeCpuUs (root: number): { root: number; descendants: number } {
  const stats = new Map<number, { ppid: number; ticks: number }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat = ''
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // Fields after the command name (which may hold spaces): state, ppid, …, utime (14), stime (15).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    stats.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) })
  }
  const below = (pid: number): boolean => {
    for (let p = stats.get(pid)?.ppid; p !== undefined && p > 1; p = stats.get(p)?.ppid) if (p === root) return true
    return false
  }
  let descendants = 0
  for (const [pid, s] of stats) if (below(pid)) descendants += s.ticks
  return { root: (stats.get(root)?.ticks ?? 0) * TICK_US, descendants: descendants * TICK_US }
}

/** This process's CPU µs so far: autocannon runs here, the load's own cost. */
function clientCpuUs (): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

async function serve (workers: number): Promise<{ url: string; pid: number; stop: () => void }> {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-cluster-'))
  mkdirSync(join(root, 'schema', 'versions', 'v1'), { recursive: true })
  writeFileSync(
    join(root, 'schema', 'versions', 'v1', 'notes.mjs'),
    "export default { path: 'notes', fields: [{ name: 'title', type: 'String', required: true }, { name: 'n', type: 'Number' }] }\n"
  )
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PORT: '0',
    JWT_SECRET: SECRET,
    SVC_WORKERS: String(workers),
    DATA_DIR: join(root, 'data'),
    SCHEMA_DIR: join(root, 'schema')
  }
  delete env.MONGODB_URI
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  const url = await new Promise<string>((resolve, reject) => {
    let err = ''
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /svc listening on (http:\/\/\S+)/.exec(err)
      if (m != null) resolve(m[1])
    })
    child.on('exit', (code) => reject(new Error(`svc start exited ${String(code)}: ${err}`)))
  })
  return {
    url,
    pid: child.pid!,
    stop: () => {
      child.kill('SIGTERM')
    }
  }
}

async function seed (url: string): Promise<string> {
  let id = ''
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${url}/api/v1/notes`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `note ${i}`, n: i })
    })
    id = ((await res.json()) as { _id: string })._id
  }
  return id
}

const settings = benchSettings()
console.log(describeRun('embedded devdb of each server', settings))
console.log(
  `machine: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the start`
)
const one = await serve(1)
const two = await serve(2).catch((err: unknown) => {
  one.stop()
  throw err
})
try {
  const [idOne, idTwo] = [await seed(one.url), await seed(two.url)]
  // One CPU reading for both trees: the server not under load adds only its idle ticks.
  const total = (pid: number): number => {
    const { root, descendants } = treeCpuUs(pid)
    return root + descendants
  }
  const cpu = async (): Promise<number> => total(one.pid) + total(two.pid)
  const loads = [
    { label: 'GET 1 worker', url: `${one.url}/api/v1/notes/${idOne}`, headers: auth },
    { label: 'GET 2 workers', url: `${two.url}/api/v1/notes/${idTwo}`, headers: auth },
    { label: 'list 1 worker', url: `${one.url}/api/v1/notes?__perPage=20`, headers: auth },
    { label: 'list 2 workers', url: `${two.url}/api/v1/notes?__perPage=20`, headers: auth }
  ]
  const [get1, get2, list1, list2] = await compareLoads(loads, cpu, settings)
  for (const m of [get1, get2, list1, list2]) {
    console.log(`${m.label}: ${m.rps.toFixed(0)} req/s, ${m.cpuUs.toFixed(0)} µs CPU per request (server tree)`)
  }

  // Where a request's CPU goes, one more run per load: the root process (the single server, or
  // the primary with the embedded database), the workers, and autocannon in this process.
  const cores = cpus().length
  const split = new Map<string, { root: number; workers: number; client: number }>()
  for (const [i, server] of [one, two, one, two].entries()) {
    const marks: Array<{ root: number; workers: number; client: number }> = []
    const mark = async (): Promise<number> => {
      const t = treeCpuUs(server.pid)
      marks.push({ root: t.root, workers: t.descendants, client: clientCpuUs() })
      return t.root + t.descendants
    }
    const [m] = await compareLoads([loads[i]], mark, { ...settings, rounds: 1 })
    // The last two marks bracket the measured run; its server µs per request apportion the rest.
    const [a, b] = marks.slice(-2)
    const perServerUs = m.cpuUs / (b.root - a.root + b.workers - a.workers)
    split.set(m.label, {
      root: (b.root - a.root) * perServerUs,
      workers: (b.workers - a.workers) * perServerUs,
      client: (b.client - a.client) * perServerUs
    })
  }
  for (const [label, s] of split) {
    console.log(
      `${label}: µs CPU per request — ${s.workers > 0 ? `primary and database ${s.root.toFixed(0)}, workers ${s.workers.toFixed(0)}` : `server and database ${s.root.toFixed(0)}`}, autocannon ${s.client.toFixed(0)}`
    )
  }
  for (const [label, a, b] of [
    ['GET', get1, get2],
    ['list', list1, list2]
  ] as const) {
    // What the machine allows at best: every core busy with the 2-worker server or autocannon.
    const client = split.get(b.label)?.client ?? 0
    const ceiling = (cores * 1e6) / (b.cpuUs + client)
    const oneUses = (a.rps * (a.cpuUs + (split.get(a.label)?.client ?? 0))) / 1e6
    console.log(
      `${label}: ${(b.rps / a.rps).toFixed(2)}x req/s with 2 workers (goal 1.6x); CPU per request ${(b.cpuUs / a.cpuUs).toFixed(2)}x; ` +
        `1 worker and autocannon already use ${oneUses.toFixed(2)} of ${cores} cores, so ${cores} cores allow at most ` +
        `${ceiling.toFixed(0)} req/s with 2 workers (${(ceiling / a.rps).toFixed(2)}x)`
    )
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end`
  )
} finally {
  one.stop()
  two.stop()
}
