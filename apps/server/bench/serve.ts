// The real `svc start` (compiled) for the benches: a `notes` schema in a temporary directory, the
// embedded database or devdb as a separate process (MONGODB_URI), rate limits high enough for a
// load (still counted), and either development settings with /_metrics on and access lines off, or
// `production`: NODE_ENV=production and every other setting at its default (access lines at info).
// Linux: RSS and CPU time are read from /proc.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { signToken } from '@svc/testkit'

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const DEVDB = fileURLToPath(new URL('../../../packages/devdb/bin/svc-devdb.js', import.meta.url))
export const SECRET = 'bench-secret-0123456789abcdef0123456789'
export const METRICS_TOKEN = 'bench-metrics-token'
export const USER = '65f0000000000000000000e1'

/** Bearer and JSON headers of one user (the tenant every bench request acts in). */
export const headers = {
  authorization: `Bearer ${signToken({ user_id: USER, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 24 * 3600 })}`,
  'content-type': 'application/json'
}

/** Resident set of a process (bytes). */
export function rssOf (pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m === null ? NaN : Number(m[1]) * 1024
}

/** CPU time (user + system) of a process so far, in µs (clock ticks of 10 ms). */
export function cpuOf (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

async function firstLine (child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string> {
  return await new Promise<string>((resolve, reject) => {
    createInterface({ input: child[stream]! }).on('line', (line) => {
      const m = pattern.exec(line)
      if (m !== null) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`child exited with ${String(code)} before answering`)))
  })
}

export interface BenchServer {
  url: string
  pid: number
  dbPid?: number
  /** The devdb server's address (`external` only), for another server to share that database. */
  dbServer?: string
  stop: () => Promise<void>
}

/**
 * `paths`: the note-shaped schemas to serve (default `notes`); a bench that writes while it also
 * lists gives its writes their own collection, so the lists' cost does not grow with them.
 */
export async function serve (opts: {
  external: boolean
  paths?: string[]
  production?: boolean
}): Promise<BenchServer> {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  mkdirSync(join(root, 'schema', 'versions', 'v1'), { recursive: true })
  for (const path of opts.paths ?? ['notes']) {
    writeFileSync(
      join(root, 'schema', 'versions', 'v1', `${path}.mjs`),
      `export default { path: '${path}', fields: [{ name: 'title', type: 'String', required: true }, { name: 'n', type: 'Number' }] }\n`
    )
  }
  // Settings of the caller's shell that would change what is measured are not inherited.
  const inherited = { ...process.env }
  for (const name of ['MONGODB_URI', 'LOG_LEVEL', 'METRICS_ENABLED', 'METRICS_TOKEN']) delete inherited[name]
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    ...(opts.production === true
      ? { NODE_ENV: 'production' }
      : { NODE_ENV: 'development', LOG_LEVEL: 'warn', METRICS_ENABLED: 'true', METRICS_TOKEN }),
    PORT: '0',
    HOST: '127.0.0.1',
    JWT_SECRET: SECRET,
    RATE_LIMIT_API_PER_MIN: '1000000',
    RATE_LIMIT_COST_PER_MIN: '1000000000000',
    DATA_DIR: join(root, 'data'),
    SCHEMA_DIR: join(root, 'schema'),
    UPLOADS_DIR: join(root, 'uploads')
  }
  const children: ChildProcess[] = []
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.reverse().map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return
        c.kill('SIGTERM')
        await new Promise((resolve) => c.once('exit', resolve))
      })
    )
    rmSync(root, { recursive: true, force: true })
  }
  try {
    let dbPid: number | undefined
    let dbServer: string | undefined
    if (opts.external) {
      const db = spawn(process.execPath, [DEVDB, '--port', '0', '--dbpath', join(root, 'db')], {
        stdio: ['ignore', 'pipe', 'inherit']
      })
      children.push(db)
      dbServer = await firstLine(db, 'stdout', /^(mongodb:\/\/\S+?)\/*$/)
      env.MONGODB_URI = `${dbServer}/svc`
      dbPid = db.pid
    }
    const server = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
    children.push(server)
    const url = await firstLine(server, 'stderr', /svc listening on (http:\/\/\S+)/)
    return { url, pid: server.pid!, dbPid, dbServer, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

/** Creates `count` notes; answers their ids. */
export async function seed (url: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/api/v1/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: `note ${i}`, n: i })
    })
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`)
    const { _id: id } = (await res.json()) as { _id: string }
    ids.push(id)
  }
  return ids
}
