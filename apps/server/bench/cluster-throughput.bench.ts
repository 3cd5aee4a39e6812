/**
 * `pnpm --filter @svc/server bench:cluster`: GET-by-id and list throughput of the real `svc start`
 * with SVC_WORKERS=1 and SVC_WORKERS=2 (each with its embedded database, NODE_ENV=test so rate
 * limits are off). Both servers run at once and the four loads alternate round by round, so a
 * machine busy with other work skews each side alike; autocannon's connections are spread over
 * the workers by the cluster primary. Besides req/s it prints the CPU time per request of each
 * server's whole process tree (primary, workers, mongod), read from /proc: steadier than req/s on
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

/** CPU µs (user + system) used so far by `root` and every live descendant (workers, mongod). */
function treeCpuUs (root: number): number {
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
  let total = 0
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = stats.get(p)?.ppid) if (p === root) return true
    return false
  }
  for (const [pid, s] of stats) if (inTree(pid)) total += s.ticks
  return total * TICK_US
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
  const cpu = async (): Promise<number> => treeCpuUs(one.pid) + treeCpuUs(two.pid)
  const [get1, get2, list1, list2] = await compareLoads(
    [
      { label: 'GET 1 worker', url: `${one.url}/api/v1/notes/${idOne}`, headers: auth },
      { label: 'GET 2 workers', url: `${two.url}/api/v1/notes/${idTwo}`, headers: auth },
      { label: 'list 1 worker', url: `${one.url}/api/v1/notes?__perPage=20`, headers: auth },
      { label: 'list 2 workers', url: `${two.url}/api/v1/notes?__perPage=20`, headers: auth }
    ],
    cpu,
    settings
  )
  for (const m of [get1, get2, list1, list2]) {
    console.log(`${m.label}: ${m.rps.toFixed(0)} req/s, ${m.cpuUs.toFixed(0)} µs CPU per request (server tree)`)
  }
  for (const [label, a, b] of [
    ['GET', get1, get2],
    ['list', list1, list2]
  ] as const) {
    console.log(
      `${label}: ${(b.rps / a.rps).toFixed(2)}x req/s with 2 workers (goal 1.6x); CPU per request ${(b.cpuUs / a.cpuUs).toFixed(2)}x`
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
