// GraphQL vs REST on the same server and database, in one run: `dealsById` vs
// GET /api/v1/deals/:id, and a 20-item page with one nested relation (`dealsMany(limit: 20)
// { … company { … } }`) vs GET /api/v1/deals?__perPage=20&__include=company. Database, server
// and load generator run in separate processes.
// Usage: pnpm --filter @svc/graphql bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
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

function graphql (label: string, url: string, headers: Record<string, string>, query: string): Target {
  return { label, opts: { url, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query }) }, rates: [], cpu: [] }
}

try {
  const devdbBin = join(dirname(fileURLToPath(import.meta.resolve('@svc/devdb'))), '..', 'bin', 'svc-devdb.js')
  const uri = process.env.MONGODB_URI ?? `${(await child([devdbBin, '--port', '0'])).replace(/\/+$/, '')}/svc_bench_graphql`
  const line = await child(['--conditions=@svc/source', '--import', 'tsx', fileURLToPath(new URL('./server.ts', import.meta.url)), uri])
  const { port, id, token } = JSON.parse(line) as { port: number, id: string, token: string }
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${token}` }
  const fields = '_id title amount stage closeDate userId createdAt updatedAt'
  const pairs: Array<[Target, Target]> = [
    [
      { label: 'GET /api/v1/deals/:id', opts: { url: `${base}/api/v1/deals/${id}`, headers: auth }, rates: [], cpu: [] },
      graphql('GraphQL dealsById', `${base}/graphql`, auth, `{ dealsById(_id: "${id}") { ${fields} } }`)
    ],
    [
      { label: 'GET 20 deals + company', opts: { url: `${base}/api/v1/deals?__perPage=20&__include=company`, headers: auth }, rates: [], cpu: [] },
      graphql('GraphQL 20 deals+company', `${base}/graphql`, auth, `{ dealsMany(limit: 20) { ${fields} company { _id name industry } } }`)
    ]
  ]
  // Each GraphQL answer must be real data, not an error, before it is timed.
  for (const [, g] of pairs) {
    const probe = await (await fetch(g.opts.url, { method: 'POST', headers: g.opts.headers, body: g.opts.body })).json() as { data?: unknown, errors?: unknown }
    if (probe.errors !== undefined || probe.data == null) throw new Error(`${g.label} probe failed: ${JSON.stringify(probe)}`)
  }
  console.log(`database: ${process.env.MONGODB_URI != null ? 'MONGODB_URI' : '@svc/devdb (child process)'}; ${CONNECTIONS} connections, ${DURATION}s per run, median of ${ROUNDS} alternating rounds`)
  for (const [rest, gql] of pairs) {
    await run(rest, `${base}/cpu`) // warm-up for both (JIT, connection pool, mercurius' query cache)
    await run(gql, `${base}/cpu`)
    rest.rates.length = gql.rates.length = rest.cpu.length = gql.cpu.length = 0
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [rest, gql] : [gql, rest]
      for (const target of order) await run(target, `${base}/cpu`)
    }
    for (const target of [rest, gql]) {
      console.log(`${target.label.padEnd(26)} ${median(target.rates).toFixed(0).padStart(6)} req/s   server CPU ${median(target.cpu).toFixed(0).padStart(5)} µs/request`)
    }
    console.log(`ratio GraphQL/REST: ${(median(gql.rates) / median(rest.rates)).toFixed(2)} (throughput)   ${(median(rest.cpu) / median(gql.cpu)).toFixed(2)} (CPU per request)   goal >= 0.80`)
  }
} finally {
  for (const c of children.reverse()) c.kill('SIGTERM')
}
