// `svc start` to the first GET /healthz 200, compiled (dist/, what `pnpm start` runs) and from
// source through tsx (SVC_FROM_SOURCE=1), on the embedded database with the example schemas.
// The first start of a data directory creates it; later starts are what a restart pays.
// Usage: pnpm --filter @svc/server bench:start   (BENCH_ROUNDS, default 3)
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTimed } from './start-time.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dataDir = await mkdtemp(join(tmpdir(), 'svc-start-bench-'))
try {
  await (await startTimed({ dataDir })).stop() // creates the data directory: not a restart
  for (const fromSource of [false, true]) {
    const times: number[] = []
    for (let i = 0; i < rounds; i++) {
      const started = await startTimed({ dataDir, fromSource })
      times.push(started.ms)
      await started.stop()
    }
    console.log(
      `${fromSource ? 'from source (tsx)' : 'compiled (dist/)'}`.padEnd(20) +
        ` start → /healthz 200: median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`
    )
  }
} finally {
  await rm(dataDir, { recursive: true, force: true })
}
