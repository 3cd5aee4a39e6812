// How many idle SSE streams one server process holds within 1 GiB RSS: opens streams in steps of
// BENCH_STEP (1000) up to BENCH_MAX_STREAMS (12000) or until the server's RSS (after a GC) passes
// 1 GiB, printing RSS per step, then the cost per stream and the count 1 GiB would hold at that
// rate. Streams spread over BENCH_USERS (100) tenants; heartbeats flow meanwhile (they are read and
// dropped here). Usage: pnpm --filter @svc/realtime bench:idle
import { signToken } from '@svc/testkit'
import { BenchProcesses } from '@svc/testkit/bench'
import { fileURLToPath } from 'node:url'
import { BENCH_SECRET } from './settings.js'
import { memoryOf, MiB, openStream, type OpenStream } from './sse.js'

const STEP = Number(process.env.BENCH_STEP ?? 1000)
const MAX = Number(process.env.BENCH_MAX_STREAMS ?? 12000)
const USERS = Number(process.env.BENCH_USERS ?? 100)
const GiB = 1024 * MiB

const processes = new BenchProcesses()
try {
  const database = await processes.database('svc_bench_realtime_idle')
  const line = await processes.line([
    '--expose-gc',
    '--conditions=@svc/source',
    '--import',
    'tsx',
    fileURLToPath(new URL('./server.ts', import.meta.url)),
    database.uri
  ])
  const server = JSON.parse(line) as { url: string; mode: string }
  const users = Array.from({ length: USERS }, (_, i) => ({
    authorization: `Bearer ${signToken({ user_id: (0x65f100000000 + i).toString(16).padStart(24, '0'), email: `i${i}@example.test`, roles: ['user'] }, BENCH_SECRET, { expiresIn: 3600 })}`
  }))
  const base = await memoryOf(server.url)
  console.log(`database: ${database.label}; idle server RSS ${(base.rss / MiB).toFixed(0)} MiB`)
  const streams: OpenStream[] = []
  let last = base
  while (streams.length < MAX && last.rss < GiB) {
    const t0 = performance.now()
    for (let i = 0; i < STEP; i += 200) {
      streams.push(
        ...(await Promise.all(
          Array.from(
            { length: Math.min(200, STEP - i) },
            async (_, j) =>
              await openStream(`${server.url}/api/v1/_events`, users[(streams.length + j) % USERS], () => {})
          )
        ))
      )
    }
    last = await memoryOf(server.url)
    console.log(
      `${streams.length} streams: RSS ${(last.rss / MiB).toFixed(0)} MiB, heap ${(last.heapUsed / MiB).toFixed(0)} MiB (step opened in ${((performance.now() - t0) / 1000).toFixed(1)} s)`
    )
  }
  const perStream = (last.rss - base.rss) / streams.length
  console.log(
    `per stream ~${(perStream / 1024).toFixed(1)} KiB of RSS; held ${streams.length} streams at ${(last.rss / MiB).toFixed(0)} MiB;` +
      ` 1 GiB would hold ~${Math.floor((GiB - base.rss) / perStream)} at that rate`
  )
  for (const s of streams) s.close()
} finally {
  processes.stop()
}
