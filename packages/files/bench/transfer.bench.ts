// Uploads and downloads of 10 MB files through @svc/files, one at a time and 8 at once, on local
// disk and on S3 (an s3rver in this process). The server runs in its own process and reports its
// peak RSS growth over a GC'd baseline; the database (devdb) and S3 run here, outside it.
// Usage: pnpm --filter @svc/files bench   (BENCH_ROUNDS=3)
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import S3rver from '@20minutes/s3rver'
import { ObjectId } from 'mongodb'
import { getTestDb, signToken } from '@svc/testkit'

const MB = 1024 * 1024
const SIZE = 10 * MB
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECRET = 'bench-secret-0123456789abcdef0123'
const children: ChildProcess[] = []
const cleanups: Array<() => unknown> = []

async function startServer (uri: string, uploadsDir: string, s3Endpoint = ''): Promise<string> {
  const script = fileURLToPath(new URL('./server.ts', import.meta.url))
  const proc = spawn(
    process.execPath,
    ['--expose-gc', '--conditions=@svc/source', '--import', 'tsx', script, uri, uploadsDir, s3Endpoint],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  children.push(proc)
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve)
    proc.once('exit', (code) => reject(new Error(`server exited with ${String(code)}`)))
  })
  return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`
}

// A PNG signature and IHDR first, so the sniffer detects image/png; random bytes after them.
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55', 'hex')
const content = Buffer.concat([PNG_HEAD, randomBytes(SIZE - PNG_HEAD.length)])
const userId = new ObjectId().toHexString()
const headers = {
  authorization: `Bearer ${signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET)}`
}

async function json (res: Response): Promise<any> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`)
  return await res.json()
}

async function upload (base: string, id: string): Promise<void> {
  const form = new FormData()
  form.append('file', new Blob([content], { type: 'image/png' }), 'bench.png')
  await json(await fetch(`${base}/api/v1/docs/${id}/blob`, { method: 'POST', headers, body: form }))
}

async function download (base: string, id: string): Promise<void> {
  const { url } = await json(await fetch(`${base}/api/v1/docs/${id}/blob`, { headers }))
  // The server's own links use its publicBaseUrl (no port); S3 links go to the bucket.
  const res = await fetch(
    url.startsWith('http://127.0.0.1/') ? `${base}${url.slice('http://127.0.0.1'.length) as string}` : url
  )
  let n = 0
  for await (const chunk of res.body!) n += (chunk as Uint8Array).length
  if (res.status !== 200 || n !== SIZE) throw new Error(`download: ${res.status}, ${n} bytes`)
}

interface Figure {
  mbPerSecond: number
  growthMb: number
}

async function measure (base: string, n: number, op: (id: string) => Promise<void>, ids: string[]): Promise<Figure> {
  await json(await fetch(`${base}/_bench/reset`, { method: 'POST' }))
  const started = performance.now()
  await Promise.all(ids.slice(0, n).map(op))
  const seconds = (performance.now() - started) / 1000
  const { baseline, peak } = await json(await fetch(`${base}/_bench/rss`))
  return { mbPerSecond: (n * SIZE) / MB / seconds, growthMb: (peak - baseline) / MB }
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  const { uri } = await getTestDb(
    {
      teardown: (fn) => {
        cleanups.push(fn)
      }
    },
    { name: 'svc_files_bench' }
  )
  const s3dir = mkdtempSync(join(tmpdir(), 'svc-files-bench-s3-'))
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: 'bench' }]
  })
  const s3Address = (await s3.run()) as AddressInfo
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER'
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER'
  cleanups.push(async () => {
    await s3.close()
    rmSync(s3dir, { recursive: true, force: true })
  })
  console.log(`10 MB files; median throughput and max peak RSS growth of the server process over ${ROUNDS} rounds`)
  console.log('backend  operation         MB/s   peak RSS growth (MB)')
  for (const backend of ['local', 's3'] as const) {
    const uploadsDir = mkdtempSync(join(tmpdir(), 'svc-files-bench-'))
    cleanups.push(() => {
      rmSync(uploadsDir, { recursive: true, force: true })
    })
    const base = await startServer(uri, uploadsDir, backend === 's3' ? `http://127.0.0.1:${s3Address.port}` : '')
    const ids: string[] = []
    for (let i = 0; i < 8; i++) {
      ids.push(
        (
          await json(
            await fetch(`${base}/api/v1/docs`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ title: `d${i}` })
            })
          )
        )._id
      )
    }
    for (const id of ids.slice(0, 2)) {
      await upload(base, id)
      await download(base, id)
    } // warm-up
    const ops: Array<[string, number, (id: string) => Promise<void>]> = [
      ['upload   x1', 1, async (id) => await upload(base, id)],
      ['upload   x8', 8, async (id) => await upload(base, id)],
      // S3 downloads go from the bucket to the client: the service only signs the URL.
      ...(backend === 'local'
        ? ([
            ['download x1', 1, async (id: string) => await download(base, id)],
            ['download x8', 8, async (id: string) => await download(base, id)]
          ] as Array<[string, number, (id: string) => Promise<void>]>)
        : [])
    ]
    for (const [label, n, op] of ops) {
      const figures: Figure[] = []
      for (let r = 0; r < ROUNDS; r++) figures.push(await measure(base, n, op, ids))
      const speed = median(figures.map((f) => f.mbPerSecond))
      const growth = Math.max(...figures.map((f) => f.growthMb))
      console.log(
        `${backend.padEnd(8)} ${label.padEnd(16)} ${speed.toFixed(1).padStart(6)}   ${growth.toFixed(1).padStart(6)}`
      )
    }
  }
} finally {
  for (const c of children) c.kill('SIGTERM')
  for (const fn of cleanups.reverse()) await fn()
}
