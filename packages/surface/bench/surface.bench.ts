// Overhead of @svc/surface on GET /api/v1/<path>/:id: core alone vs core behind metrics + rate
// limits + CORS (and vs everything the reference server turns on). Database, servers and load
// generator run in separate processes; alternating rounds, medians.
// Usage: pnpm --filter @svc/surface bench   (BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=10)
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
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

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  const { uri } = await child('./devdb.ts')
  const s = await child('./servers.ts', [uri])
  const headers = { authorization: `Bearer ${s.token as string}`, origin: 'https://app.example.test' }
  const cpu = async (): Promise<number> => {
    const { user, system } = await (await fetch(`http://127.0.0.1:${s.cpu as number}/`)).json() as { user: number, system: number }
    return user + system
  }
  const variants = { bare: s.bare, 'metrics+limits+cors': s.measured, 'all of @svc/surface': s.full } as Record<string, number>
  const rps = new Map<string, number[]>()
  const cpuPerReq = new Map<string, number[]>()
  const run = async (name: string): Promise<void> => {
    const before = await cpu()
    const r = await autocannon({ url: `http://127.0.0.1:${variants[name]}/api/v1/deals/${s.id as string}`, connections: CONNECTIONS, duration: DURATION, headers })
    if (r.errors + r.non2xx > 0) throw new Error(`${name}: ${r.errors + r.non2xx} errors / non-2xx`)
    rps.set(name, [...(rps.get(name) ?? []), r.requests.average])
    cpuPerReq.set(name, [...(cpuPerReq.get(name) ?? []), (await cpu() - before) / r.requests.total])
  }
  const names = Object.keys(variants)
  for (const n of names) await run(n) // warm-up
  rps.clear()
  cpuPerReq.clear()
  for (let r = 0; r < ROUNDS; r++) for (const n of r % 2 === 0 ? names : [...names].reverse()) await run(n)
  console.log(`GET /api/v1/deals/:id, ${CONNECTIONS} connections, ${DURATION}s per run, median of ${ROUNDS} alternating rounds`)
  const base = median(rps.get('bare')!)
  for (const n of names) {
    const v = median(rps.get(n)!)
    console.log(`${n.padEnd(22)} ${v.toFixed(0).padStart(6)} req/s   ratio ${(v / base).toFixed(2)}   server CPU ${median(cpuPerReq.get(n)!).toFixed(0)} µs/request`)
  }
} finally {
  for (const c of children.reverse()) c.kill('SIGTERM')
}
