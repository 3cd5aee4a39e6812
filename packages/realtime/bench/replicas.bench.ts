// Delivery across two instances on one database: creates sent to instance A at BENCH_RATE (50)/s
// for BENCH_SECONDS (10) s, read by BENCH_STREAMS (100) streams on instance B (and as many on A),
// over BENCH_USERS (20) tenants. Latency from sending a create to its arrival, p50 / p99 / max, on
// each instance, and how far B's first arrival of each create trails A's (the crossing itself,
// without the create's own queueing). Each instance follows the event log by change stream where the database serves
// them (devdb now does), by polling otherwise. Usage: pnpm --filter @svc/realtime bench:replicas
import { BenchProcesses } from '@svc/testkit/bench'
import { benchUsers, paceCreates, settle } from './load.js'
import { openStream, percentile, type OpenStream } from './sse.js'

const RATE = Number(process.env.BENCH_RATE ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const STREAMS = Number(process.env.BENCH_STREAMS ?? 100)
const USERS = Number(process.env.BENCH_USERS ?? 20)

const processes = new BenchProcesses()
try {
  const database = await processes.database('svc_bench_realtime_replicas')
  const script = new URL('./server.ts', import.meta.url)
  const a = await processes.script<{ url: string; mode: string }>(script, [database.uri])
  const b = await processes.script<{ url: string; mode: string }>(script, [database.uri])
  console.log(
    `database: ${database.label}; event log modes ${a.mode} / ${b.mode}; ${RATE} creates/s on A for ${SECONDS} s, ${STREAMS} streams on each instance`
  )
  const users = benchUsers(USERS, 0x65f200000000, 'r')
  const sentAt = new Map<string, number>()
  const seen = { a: [] as number[], b: [] as number[] }
  // first arrival of each create on each instance: B's lag behind A isolates the crossing
  const first = { a: new Map<string, number>(), b: new Map<string, number>() }
  const reader =
    (side: 'a' | 'b') =>
      (data: string): void => {
        const text = (JSON.parse(data) as { record?: { text?: string } }).record?.text ?? ''
        const t0 = sentAt.get(text)
        if (t0 === undefined) return
        const now = performance.now()
        seen[side].push(now - t0)
        if (!first[side].has(text)) first[side].set(text, now)
      }
  const streams: OpenStream[] = []
  for (const [side, server] of [
    ['a', a],
    ['b', b]
  ] as const) {
    streams.push(
      ...(await Promise.all(
        Array.from(
          { length: STREAMS },
          async (_, i) =>
            await openStream(`${server.url}/api/v1/_events?types=notes.created`, users[i % USERS], reader(side))
        )
      ))
    )
  }
  const total = RATE * SECONDS
  const paced = await paceCreates(a.url, users, RATE, SECONDS, 'r', sentAt)
  const expected = total * (STREAMS / USERS)
  await settle(() => seen.a.length >= expected && seen.b.length >= expected)
  const f = (x: number): string => x.toFixed(1)
  for (const side of ['a', 'b'] as const) {
    const xs = seen[side]
    console.log(
      `instance ${side.toUpperCase()}${side === 'a' ? ' (writes here)' : ' (other instance)'}: ${xs.length} of ${expected} deliveries; p50 ${f(percentile(xs, 0.5))} / p99 ${f(percentile(xs, 0.99))} / max ${f(Math.max(...xs))} ms`
    )
  }
  const lag = [...first.b].flatMap(([text, at]) => (first.a.has(text) ? [at - (first.a.get(text) as number)] : []))
  console.log(
    `B's first arrival minus A's, per create: p50 ${f(percentile(lag, 0.5))} / p99 ${f(percentile(lag, 0.99))} / max ${f(Math.max(...lag))} ms`
  )
  console.log(`creates failed: ${paced.failed}`)
  for (const s of streams) s.close()
} finally {
  processes.stop()
}
