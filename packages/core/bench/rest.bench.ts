// GET by id and a 20-item list through svc vs a hand-written raw-driver Fastify route on the
// same database. Database, servers and load generator run in separate processes.
// Usage: pnpm --filter @svc/core bench   (MONGODB_URI=… to use a real MongoDB; BENCH_SECONDS=10)
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
// Alternating rounds and medians, so a busy machine skews both sides alike.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const children: ChildProcess[] = []

async function child (script: string, args: string[] = []): Promise<Record<string, any>> {
  const proc = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(proc)
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve)
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${String(code)}`)))
  })
  return JSON.parse(line)
}

let cpuUrl = ''
async function serverCpu (): Promise<number> {
  const { user, system } = await (await fetch(cpuUrl)).json() as { user: number, system: number }
  return user + system
}

const cpuPerRequest = new Map<string, number[]>()

async function run (url: string, token: string): Promise<number> {
  const before = await serverCpu()
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers: { authorization: `Bearer ${token}` } })
  const cpu = await serverCpu() - before
  const errors = result.errors + result.non2xx
  if (errors > 0) throw new Error(`${url}: ${errors} errors / non-2xx responses`)
  cpuPerRequest.set(url, [...(cpuPerRequest.get(url) ?? []), cpu / result.requests.total])
  return result.requests.average
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  const uri = process.env.MONGODB_URI ?? (await child('./devdb.ts')).uri as string
  const { svcPort, rawPort, id, token } = await child('./servers.ts', [uri])
  cpuUrl = `http://127.0.0.1:${rawPort as number}/cpu`
  const pairs: Array<[string, string, string]> = [
    ['GET /:id', `http://127.0.0.1:${svcPort as number}/api/v1/deals/${id as string}`, `http://127.0.0.1:${rawPort as number}/raw/deals/${id as string}`],
    ['GET list (20)', `http://127.0.0.1:${svcPort as number}/api/v1/deals`, `http://127.0.0.1:${rawPort as number}/raw/deals`]
  ]
  console.log(`database: ${process.env.MONGODB_URI != null ? 'MONGODB_URI' : '@svc/devdb (child process)'}; ${CONNECTIONS} connections, ${DURATION}s per run, median of ${ROUNDS} alternating rounds`)
  for (const [label, svcUrl, rawUrl] of pairs) {
    await run(svcUrl, token) // warm-up (JIT, connection pool) for both before measuring
    await run(rawUrl, token)
    const svcRuns: number[] = []
    const rawRuns: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) { rawRuns.push(await run(rawUrl, token)); svcRuns.push(await run(svcUrl, token)) } else { svcRuns.push(await run(svcUrl, token)); rawRuns.push(await run(rawUrl, token)) }
    }
    const svc = median(svcRuns)
    const raw = median(rawRuns)
    console.log(`${label.padEnd(14)} svc ${svc.toFixed(0).padStart(6)} req/s   raw ${raw.toFixed(0).padStart(6)} req/s   ratio ${(svc / raw).toFixed(2)}`)
    const svcCpu = median(cpuPerRequest.get(svcUrl)!.slice(1))
    const rawCpu = median(cpuPerRequest.get(rawUrl)!.slice(1))
    console.log(`${''.padEnd(14)} server CPU per request: svc ${svcCpu.toFixed(0)} µs, raw ${rawCpu.toFixed(0)} µs (raw/svc ${(rawCpu / svcCpu).toFixed(2)})`)
  }
} finally {
  for (const c of children.reverse()) c.kill('SIGTERM')
}
