// get_<path> over MCP (one JSON-RPC tools/call per POST /mcp) vs GET /api/v1/<path>/:id on the
// same server and database. Database, server and load generator run in separate processes.
// Usage: pnpm --filter @svc/mcp bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import { spawn, type ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
// Alternating rounds and medians, so a busy machine skews both sides alike.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const children: ChildProcess[] = []

async function child (args: string[]): Promise<string> {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(proc)
  return await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve)
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${String(code)}`)))
  })
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

interface Target { label: string, opts: { url: string, method?: string, body?: string, headers: Record<string, string> }, rates: number[], cpu: number[] }

async function run (target: Target, cpuUrl: string): Promise<void> {
  const cpu = async (): Promise<number> => { const u = await (await fetch(cpuUrl)).json() as { user: number, system: number }; return u.user + u.system }
  const before = await cpu()
  const result = await autocannon({ ...target.opts, connections: CONNECTIONS, duration: DURATION })
  const used = await cpu() - before
  if (result.errors + result.non2xx > 0) throw new Error(`${target.label}: ${result.errors + result.non2xx} errors / non-2xx responses`)
  target.rates.push(result.requests.average)
  target.cpu.push(used / result.requests.total)
}

try {
  const devdbBin = join(dirname(fileURLToPath(import.meta.resolve('@svc/devdb'))), '..', 'bin', 'svc-devdb.js')
  const uri = process.env.MONGODB_URI ?? `${(await child([devdbBin, '--port', '0'])).replace(/\/+$/, '')}/svc_bench_mcp`
  const line = await child(['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(new URL('./server.ts', import.meta.url)), uri])
  const { port, id, token } = JSON.parse(line) as { port: number, id: string, token: string }
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${token}` }
  const rest: Target = { label: 'GET /api/v1/deals/:id', opts: { url: `${base}/api/v1/deals/${id}`, headers: auth }, rates: [], cpu: [] }
  const mcp: Target = {
    label: 'MCP get_deals',
    opts: {
      url: `${base}/mcp`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_deals', arguments: { id } } })
    },
    rates: [],
    cpu: []
  }
  // The MCP answer must be a real record, not a tool error, before it is timed.
  const probe = await (await fetch(mcp.opts.url, { method: 'POST', headers: mcp.opts.headers, body: mcp.opts.body })).json() as { result?: { isError?: boolean, structuredContent?: { _id?: string } } }
  if (probe.result?.isError === true || probe.result?.structuredContent?._id !== id) throw new Error(`MCP probe failed: ${JSON.stringify(probe)}`)
  console.log(`database: ${process.env.MONGODB_URI != null ? 'MONGODB_URI' : '@svc/devdb (child process)'}; ${CONNECTIONS} connections, ${DURATION}s per run, median of ${ROUNDS} alternating rounds`)
  await run(rest, `${base}/cpu`) // warm-up for both (JIT, connection pool)
  await run(mcp, `${base}/cpu`)
  rest.rates.length = mcp.rates.length = rest.cpu.length = mcp.cpu.length = 0
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [rest, mcp] : [mcp, rest]
    for (const target of order) await run(target, `${base}/cpu`)
  }
  for (const target of [rest, mcp]) {
    console.log(`${target.label.padEnd(24)} ${median(target.rates).toFixed(0).padStart(6)} req/s   server CPU ${median(target.cpu).toFixed(0).padStart(5)} µs/request`)
  }
  console.log(`ratio MCP/REST: ${(median(mcp.rates) / median(rest.rates)).toFixed(2)} (throughput)   ${(median(rest.cpu) / median(mcp.cpu)).toFixed(2)} (CPU per request)   goal >= 0.70`)
} finally {
  for (const c of children.reverse()) c.kill('SIGTERM')
}
