/**
 * What the packages' benchmarks share (`@svc/testkit/bench`): child processes — the database and
 * the servers under test, so they never share the load generator's event loop — whose first
 * stdout line is their answer; the database (`MONGODB_URI`, or an in-memory devdb in a child
 * process); and autocannon loads compared in alternating rounds by their medians, so a busy
 * machine skews every side alike, with the server process's CPU time per request (steadier than
 * requests per second on a shared machine). Settings from the environment: BENCH_SECONDS (5),
 * BENCH_CONNECTIONS (10), BENCH_ROUNDS (3).
 */
/// <reference path="./autocannon.d.ts" />
import { spawn, type ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export interface BenchSettings {
  seconds: number
  connections: number
  rounds: number
}

export function benchSettings (env: Record<string, string | undefined> = process.env): BenchSettings {
  const num = (v: string | undefined, fallback: number): number => (v === undefined || v === '' ? fallback : Number(v))
  return {
    seconds: num(env.BENCH_SECONDS, 5),
    connections: num(env.BENCH_CONNECTIONS, 10),
    rounds: num(env.BENCH_ROUNDS, 3)
  }
}

/** The child processes of one benchmark run; `stop()` ends them all (call it in `finally`). */
export class BenchProcesses {
  readonly #children: ChildProcess[] = []

  /** Runs `node …args`; resolves with its first line on stdout (it fails if the process exits first). */
  async line (args: string[]): Promise<string> {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    this.#children.push(proc)
    return await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).once('line', resolve)
      proc.once('exit', (code) =>
        reject(new Error(`node ${args.join(' ')} exited with ${String(code)} before answering`))
      )
    })
  }

  /** A TypeScript script run on the workspace sources (tsx, `@svc/source`): its first stdout line as JSON. */
  async script<T = Record<string, unknown>>(script: URL, args: string[] = []): Promise<T> {
    return JSON.parse(
      await this.line(['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(script), ...args])
    ) as T
  }

  /** `MONGODB_URI` when set, else an in-memory devdb in a child process; `name` is the database. */
  async database (name: string): Promise<{ uri: string; label: string }> {
    const given = process.env.MONGODB_URI
    if (given !== undefined && given !== '') return { uri: given, label: 'MONGODB_URI' }
    const bin = join(dirname(fileURLToPath(import.meta.resolve('@svc/devdb'))), '..', 'bin', 'svc-devdb.js')
    const server = (await this.line([bin, '--port', '0'])).replace(/\/+$/, '')
    return { uri: `${server}/${name}`, label: '@svc/devdb (child process)' }
  }

  stop (): void {
    for (const c of this.#children.reverse()) c.kill('SIGTERM')
    this.#children.length = 0
  }
}

export function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * One load: a request autocannon repeats. `paths` (on `url`'s origin), when given, are cycled
 * request by request: writes spread over many records, so a figure measures the write path and
 * not ten connections contending for one record.
 */
export interface Load {
  label: string
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
  paths?: string[]
  /** This load's server CPU so far (µs), when the loads compared run in different processes. */
  cpu?: () => Promise<number>
  /** The database process's CPU so far (µs), when it is a separate process of this machine. */
  dbCpu?: () => Promise<number>
}

function cycling (paths: string[]): {
  requests: Array<{ setupRequest: (req: { path?: string }) => { path?: string } }>
} {
  let next = 0
  return { requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }] }
}
/** Medians over the rounds: requests per second, server and database CPU µs per request (NaN without `cpu` / `dbCpu`). */
export interface Measured {
  label: string
  rps: number
  cpuUs: number
  dbCpuUs: number
}

/** A server's CPU time so far (µs, user + system) from an endpoint answering `process.cpuUsage()`. */
export function cpuFrom (url: string): () => Promise<number> {
  return async () => {
    const { user, system } = (await (await fetch(url)).json()) as { user: number; system: number }
    return user + system
  }
}

/**
 * Runs every load once to warm up (JIT, connection pools, caches), then `rounds` rounds in
 * alternating order (reversed every other round), and answers each load's medians. Any error or
 * non-2xx answer fails the run: a benchmark of errors measures nothing.
 */
export async function compareLoads (
  loads: Load[],
  cpu?: () => Promise<number>,
  settings: BenchSettings = benchSettings()
): Promise<Measured[]> {
  const rps = loads.map((): number[] => [])
  const cpuUs = loads.map((): number[] => [])
  const dbCpuUs = loads.map((): number[] => [])
  const once = async (i: number): Promise<void> => {
    const { label, paths, cpu: own, dbCpu, ...request } = loads[i]
    const serverCpu = own ?? cpu
    const before = serverCpu === undefined ? 0 : await serverCpu()
    const dbBefore = dbCpu === undefined ? 0 : await dbCpu()
    const r = await autocannon({
      ...request,
      ...(paths === undefined ? {} : cycling(paths)),
      connections: settings.connections,
      duration: settings.seconds
    })
    const used = serverCpu === undefined ? NaN : (await serverCpu()) - before
    const dbUsed = dbCpu === undefined ? NaN : (await dbCpu()) - dbBefore
    if (r.errors + r.non2xx > 0) throw new Error(`${label}: ${r.errors + r.non2xx} errors / non-2xx responses`)
    rps[i].push(r.requests.average)
    cpuUs[i].push(used / r.requests.total)
    dbCpuUs[i].push(dbUsed / r.requests.total)
  }
  const order = loads.map((_, i) => i)
  for (const i of order) await once(i)
  for (const list of [...rps, ...cpuUs, ...dbCpuUs]) list.length = 0
  for (let round = 0; round < settings.rounds; round++) {
    for (const i of round % 2 === 0 ? order : [...order].reverse()) await once(i)
  }
  return loads.map((l, i) => ({
    label: l.label,
    rps: median(rps[i]),
    cpuUs: median(cpuUs[i]),
    dbCpuUs: median(dbCpuUs[i])
  }))
}

/** The line every benchmark prints first: what it runs on and how long. */
export function describeRun (database: string, settings: BenchSettings = benchSettings()): string {
  return `database: ${database}; ${settings.connections} connections, ${settings.seconds}s per run, median of ${settings.rounds} alternating rounds`
}
