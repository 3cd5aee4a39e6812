// Event-to-delivery latency of the SSE feed under load: BENCH_STREAMS (1000) open streams across
// BENCH_USERS (100) tenants, BENCH_RATE (200) creates/s for BENCH_SECONDS (10) s, each create
// delivered to its tenant's streams. Latency: from sending the create to the event's arrival on a
// stream (the create's own time included), p50 / p99 / max over every delivery. The server and the
// database run in child processes; this process writes and reads (its event loop is part of the
// figure). Usage: pnpm --filter @svc/realtime bench   (MONGODB_URI=… to use a real MongoDB)
import { BenchProcesses } from '@svc/testkit/bench'
import { benchUsers, paceCreates, settle } from './load.js'
import { memoryOf, MiB, openStream, percentile, type OpenStream } from './sse.js'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000)
const USERS = Number(process.env.BENCH_USERS ?? 100)
const RATE = Number(process.env.BENCH_RATE ?? 200)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)

const processes = new BenchProcesses()
try {
  const database = await processes.database('svc_bench_realtime')
  const server = await processes.script<{ url: string; mode: string }>(new URL('./server.ts', import.meta.url), [
    database.uri
  ])
  console.log(
    `database: ${database.label}; event log mode: ${server.mode}; ${STREAMS} streams over ${USERS} tenants, ${RATE} creates/s for ${SECONDS} s`
  )
  const users = benchUsers(USERS, 0x65f000000000, 'b')
  const sentAt = new Map<string, number>()
  const latencies: number[] = []
  const onData = (data: string): void => {
    const text = (JSON.parse(data) as { record?: { text?: string } }).record?.text
    const t0 = text !== undefined ? sentAt.get(text) : undefined
    if (t0 !== undefined) latencies.push(performance.now() - t0)
  }
  const streams: OpenStream[] = []
  const opening = performance.now()
  for (let i = 0; i < STREAMS; i += 100) {
    streams.push(
      ...(await Promise.all(
        Array.from(
          { length: Math.min(100, STREAMS - i) },
          async (_, j) =>
            await openStream(`${server.url}/api/v1/_events?types=notes.created`, users[(i + j) % USERS], onData)
        )
      ))
    )
  }
  console.log(`opened ${streams.length} streams in ${((performance.now() - opening) / 1000).toFixed(1)} s`)
  const total = RATE * SECONDS
  const paced = await paceCreates(server.url, users, RATE, SECONDS, 'w', sentAt)
  const expected = total * (STREAMS / USERS)
  await settle(() => latencies.length >= expected)
  const mem = await memoryOf(server.url)
  const f = (x: number): string => x.toFixed(1)
  console.log(
    `creates: ${total} in ${paced.seconds.toFixed(1)} s (${(total / paced.seconds).toFixed(0)}/s), failed ${paced.failed}; create answer p50 ${f(percentile(paced.answers, 0.5))} / p99 ${f(percentile(paced.answers, 0.99))} ms`
  )
  console.log(
    `deliveries: ${latencies.length} of ${expected}; event-to-delivery p50 ${f(percentile(latencies, 0.5))} / p99 ${f(percentile(latencies, 0.99))} / max ${f(Math.max(...latencies))} ms`
  )
  console.log(`server RSS ${(mem.rss / MiB).toFixed(0)} MiB, heap ${(mem.heapUsed / MiB).toFixed(0)} MiB`)
  for (const s of streams) s.close()
} finally {
  processes.stop()
}
