/**
 * `pnpm --filter @svc/server bench:parse`: the real `svc start` (compiled, every plugin) against
 * Parse Server on its default options, side by side on one devdb (a separate process), in
 * alternating rounds: GET by id, a list of 20 with its total, the same list without counting
 * (svc `__count=false`, Parse without `count`), and create. Both act as one signed-in user on
 * records only that user may read (svc: its tenancy; Parse: an ACL on each object, the session
 * token on each request). Prints req/s, CPU µs per request of both servers' processes (the idle
 * one adds next to nothing) and svc's ratio to Parse. Goals (issue 23): get >= 2.5x, list >= 2x,
 * create >= 1.5x.
 * Parse Server is not a dependency of svc: the bench installs `parse-server@8` with npm into
 * PARSE_SERVER_DIR (default ~/.cache/svc-bench/parse-server) on its first run (~40 s, needs the
 * npm registry). BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS as in @svc/testkit/bench.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BenchProcesses, compareLoads, describeRun, type Load } from '@svc/testkit/bench'
import { cpuOf, headers, seed, serve } from './serve.js'

const PARSE_DIR = process.env.PARSE_SERVER_DIR ?? join(homedir(), '.cache', 'svc-bench', 'parse-server')
const GOALS: Record<string, number> = { get: 2.5, list: 2, create: 1.5 }

function installParse (): void {
  if (existsSync(join(PARSE_DIR, 'node_modules', 'parse-server', 'package.json'))) return
  console.log(`installing parse-server@8 into ${PARSE_DIR} (first run only)`)
  mkdirSync(PARSE_DIR, { recursive: true })
  execFileSync('npm', ['install', '--prefix', PARSE_DIR, '--no-audit', '--no-fund', 'parse-server@8'], {
    stdio: ['ignore', 'ignore', 'inherit']
  })
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
    s.once('error', reject)
  })
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function exited (pid: number): Promise<void> {
  for (let tries = 200; tries > 0 && alive(pid); tries--) await new Promise((resolve) => setTimeout(resolve, 50))
}

async function untilHealthy (url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false
    )
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`Parse Server did not answer ${url} within 60 s`)
}

async function parseJson (url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init)
  const body = (await res.json()) as Record<string, unknown>
  if (!res.ok) throw new Error(`Parse ${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`)
  return body
}

installParse()
const svc = await serve({ external: true, paths: ['notes', 'drafts'] })
const processes = new BenchProcesses()
let parsePid: number | undefined
try {
  const port = await freePort()
  const parseScript = fileURLToPath(new URL('./parse-server.mjs', import.meta.url))
  ;({ pid: parsePid } = JSON.parse(
    await processes.line([parseScript, PARSE_DIR, `${svc.dbServer!}/parse_bench`, String(port)])
  ) as { pid: number })
  await untilHealthy(`http://127.0.0.1:${port}/parse/health`)
  const parse = `http://127.0.0.1:${port}/parse`
  const app = { 'x-parse-application-id': 'bench', 'content-type': 'application/json' }
  const user = await parseJson(`${parse}/users`, {
    method: 'POST',
    headers: app,
    body: JSON.stringify({ username: 'bench', password: 'bench-password' })
  })
  // Parse 8 lets only the master key create a class: the counterpart of svc's schema files. Creates
  // go to a class of their own (svc: `drafts`), so the lists' cost does not grow with them.
  for (const className of ['Note', 'Draft']) {
    await parseJson(`${parse}/schemas/${className}`, {
      method: 'POST',
      headers: { ...app, 'x-parse-master-key': 'bench-master-key' },
      body: JSON.stringify({ className, fields: { title: { type: 'String' }, n: { type: 'Number' } } })
    })
  }
  const parseHeaders = { ...app, 'x-parse-session-token': String(user.sessionToken) }
  const acl = { [String(user.objectId)]: { read: true, write: true } }
  const parseIds: string[] = []
  for (let i = 0; i < 20; i++) {
    const created = await parseJson(`${parse}/classes/Note`, {
      method: 'POST',
      headers: parseHeaders,
      body: JSON.stringify({ title: `note ${i}`, n: i, ACL: acl })
    })
    parseIds.push(String(created.objectId))
  }
  const [svcId] = await seed(svc.url, 20)
  const note = JSON.stringify({ title: 'bench note', n: 5 })
  const pairs: Array<[string, Load, Load]> = [
    [
      'get',
      { label: 'svc get', url: `${svc.url}/api/v1/notes/${svcId}`, headers },
      { label: 'Parse get', url: `${parse}/classes/Note/${parseIds[0]}`, headers: parseHeaders }
    ],
    [
      'list',
      { label: 'svc list-20 + total', url: `${svc.url}/api/v1/notes?__perPage=20`, headers },
      { label: 'Parse list-20 + count', url: `${parse}/classes/Note?limit=20&count=1`, headers: parseHeaders }
    ],
    [
      'list, no count',
      { label: 'svc list-20 __count=false', url: `${svc.url}/api/v1/notes?__perPage=20&__count=false`, headers },
      { label: 'Parse list-20', url: `${parse}/classes/Note?limit=20`, headers: parseHeaders }
    ],
    [
      'create',
      { label: 'svc create', url: `${svc.url}/api/v1/drafts`, method: 'POST', headers, body: note },
      {
        label: 'Parse create',
        url: `${parse}/classes/Draft`,
        method: 'POST',
        headers: parseHeaders,
        body: JSON.stringify({ title: 'bench note', n: 5, ACL: acl })
      }
    ]
  ]
  // Each answer must hold what was asked before it is timed: a benchmark of errors measures nothing.
  for (const [, ...loads] of pairs) {
    for (const l of loads.filter((l) => l.method === undefined)) {
      const text = await (await fetch(l.url, { headers: l.headers })).text()
      if (!text.includes(svcId) && !text.includes(parseIds[0])) throw new Error(`${l.label} probe failed: ${text}`)
    }
  }
  console.log(describeRun('@svc/devdb (child process), shared by both servers'))
  const measured = await compareLoads(
    pairs.flatMap(([, a, b]) => [a, b]),
    async () => cpuOf(svc.pid) + cpuOf(parsePid!)
  )
  for (const m of measured) {
    console.log(
      `${m.label.padEnd(28)} ${m.rps.toFixed(0).padStart(6)} req/s   CPU ${m.cpuUs.toFixed(0).padStart(5)} µs/request`
    )
  }
  pairs.forEach(([what], i) => {
    const [s, p] = [measured[2 * i], measured[2 * i + 1]]
    const goal = GOALS[what] === undefined ? '' : `   goal >= ${GOALS[what].toFixed(1)}`
    console.log(
      `svc/Parse ${what.padEnd(16)} ${(s.rps / p.rps).toFixed(2)} (throughput)   ${(p.cpuUs / s.cpuUs).toFixed(2)} (CPU per request)${goal}`
    )
  })
} finally {
  processes.stop()
  // Parse closes its database client on SIGTERM: let it (up to 10 s), before the database goes away.
  // Parse 8 may then stay up (its HTTP server's close fails): kill it, or its stdout pipe keeps the bench alive.
  if (parsePid !== undefined) {
    await exited(parsePid)
    if (alive(parsePid)) process.kill(parsePid, 'SIGKILL')
  }
  await svc.stop()
}
