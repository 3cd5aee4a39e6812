/**
 * `pnpm --filter @svc/server bench:cluster`: GET-by-id and list throughput of the real `svc start`
 * with SVC_WORKERS=1 and SVC_WORKERS=2 (embedded database in the primary, NODE_ENV=test so rate
 * limits are off). autocannon's connections are spread over the workers by the cluster primary.
 * BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS as in @svc/testkit/bench. On a shared machine
 * the figures are noisy: compare the ratio, not the absolute numbers.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchSettings, compareLoads, describeRun } from '@svc/testkit/bench'
import { signToken } from '@svc/testkit'

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const SECRET = 'bench-secret-0123456789abcdef0123456789'
const auth = { authorization: `Bearer ${signToken({ user_id: '65f0000000000000000000e1', email: 'b@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })}` }

async function serve (workers: number): Promise<{ url: string, stop: () => void }> {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-cluster-'))
  mkdirSync(join(root, 'schema', 'versions', 'v1'), { recursive: true })
  writeFileSync(join(root, 'schema', 'versions', 'v1', 'notes.mjs'), "export default { path: 'notes', fields: [{ name: 'title', type: 'String', required: true }, { name: 'n', type: 'Number' }] }\n")
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', PORT: '0', JWT_SECRET: SECRET, SVC_WORKERS: String(workers), DATA_DIR: join(root, 'data'), SCHEMA_DIR: join(root, 'schema') }
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
  return { url, stop: () => { child.kill('SIGTERM') } }
}

const settings = benchSettings()
console.log(describeRun('embedded devdb in the cluster primary', settings))
const figures: Record<string, Record<number, number>> = { GET: {}, list: {} }
for (const workers of [1, 2]) {
  const server = await serve(workers)
  try {
    let id = ''
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${server.url}/api/v1/notes`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: `note ${i}`, n: i }) })
      id = (await res.json() as { _id: string })._id
    }
    const [get, list] = await compareLoads([
      { label: 'GET', url: `${server.url}/api/v1/notes/${id}`, headers: auth },
      { label: 'list', url: `${server.url}/api/v1/notes?__perPage=20`, headers: auth }
    ], undefined, settings)
    figures.GET[workers] = get.rps
    figures.list[workers] = list.rps
    console.log(`SVC_WORKERS=${workers}: GET ${get.rps.toFixed(0)} req/s, list ${list.rps.toFixed(0)} req/s`)
  } finally {
    server.stop()
  }
}
for (const label of ['GET', 'list']) {
  console.log(`${label}: ${(figures[label][2] / figures[label][1]).toFixed(2)}x with 2 workers (goal 1.6x)`)
}
