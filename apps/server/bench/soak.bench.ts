/**
 * `pnpm --filter @svc/server bench:soak`: memory of the real `svc start` (compiled) under a mixed
 * load — GET by id, list of 20 with a total, GraphQL by id, MCP get, update — once with the
 * embedded database in the server process and once with devdb as a separate process
 * (MONGODB_URI). Prints the server's RSS and V8 heap (from its /_metrics) at start, after the
 * warm-up and at the end, and the database's own RSS when it runs apart. Every write adds audit
 * and event-log rows, so the database grows with the load: that is data, not a leak, and it is
 * reported on its own line. SOAK_SECONDS (600), SOAK_WARMUP_SECONDS (60), SOAK_CONNECTIONS (10).
 */
import { METRICS_TOKEN, headers, rssOf, seed, serve, type BenchServer } from './serve.js'

const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback)
const SECONDS = num('SOAK_SECONDS', 600)
const WARMUP = num('SOAK_WARMUP_SECONDS', 60)
const CONNECTIONS = num('SOAK_CONNECTIONS', 10)

async function heapUsed (url: string): Promise<number> {
  const text = await (await fetch(`${url}/_metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const m = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text)
  if (m === null) throw new Error('no nodejs_heap_size_used_bytes in /_metrics')
  return Number(m[1])
}

interface Sample {
  label: string
  rss: number
  heap: number
  dbRss?: number
}

async function sample (label: string, s: BenchServer): Promise<Sample> {
  return {
    label,
    rss: rssOf(s.pid),
    heap: await heapUsed(s.url),
    ...(s.dbPid !== undefined ? { dbRss: rssOf(s.dbPid) } : {})
  }
}

/** `CONNECTIONS` loops over the mix until `until`; answers the request count (any failure stops the run). */
async function load (url: string, ids: string[], until: number): Promise<number> {
  const id = ids[0]
  const mcp = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_notes', arguments: { id } } }
  const mix: Array<(connection: number) => Promise<Response>> = [
    async () => await fetch(`${url}/api/v1/notes/${id}`, { headers }),
    async () => await fetch(`${url}/api/v1/notes?__perPage=20`, { headers }),
    async () =>
      await fetch(`${url}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: `{ notesById(_id: "${id}") { _id title n } }` })
      }),
    async () =>
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...headers, accept: 'application/json, text/event-stream' },
        body: JSON.stringify(mcp)
      }),
    async () => await fetch(`${url}/api/v1/notes?__perPage=20&__count=false`, { headers }),
    // Each connection updates its own record: concurrent updates of one record are refused (409).
    async (c: number) =>
      await fetch(`${url}/api/v1/notes/${ids[c]}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ n: Date.now() % 1000 })
      })
  ]
  let count = 0
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      for (let i = c; Date.now() < until; i++) {
        const res = await mix[i % mix.length](c)
        if (res.status >= 300) throw new Error(`${res.url}: ${res.status} ${await res.text()}`)
        await res.arrayBuffer()
        count++
      }
    })
  )
  return count
}

const mb = (bytes: number | undefined): string =>
  bytes === undefined ? '' : `${(bytes / 1048576).toFixed(0).padStart(5)} MB`
const pct = (a: number, b: number): string => `${b >= a ? '+' : ''}${((b / a - 1) * 100).toFixed(1)} %`

console.log(
  `mixed load: ${CONNECTIONS} connections, ${WARMUP}s warm-up, then ${SECONDS}s (SOAK_WARMUP_SECONDS, SOAK_SECONDS)`
)
for (const external of [false, true]) {
  const server = await serve({ external })
  try {
    // A page of 20 for the list requests to read, and a record per connection to update.
    const ids = await seed(server.url, Math.max(30, CONNECTIONS))
    const samples = [await sample('start', server)]
    const warm = await load(server.url, ids, Date.now() + WARMUP * 1000)
    samples.push(await sample(`after warm-up (${warm} requests)`, server))
    const soak = await load(server.url, ids, Date.now() + SECONDS * 1000)
    samples.push(await sample(`end (${soak} more requests)`, server))
    console.log(
      `\n${external ? 'database out of process (devdb child, MONGODB_URI)' : 'embedded database in the server process'}`
    )
    console.log(`${''.padEnd(36)}  server RSS   V8 heap used${external ? '   database RSS' : ''}`)
    for (const s of samples) console.log(`${s.label.padEnd(36)}  ${mb(s.rss)}   ${mb(s.heap)}      ${mb(s.dbRss)}`)
    const [, w, e] = samples
    console.log(
      `warm-up → end: server RSS ${pct(w.rss, e.rss)}, heap ${pct(w.heap, e.heap)}${external ? `, database RSS ${pct(w.dbRss!, e.dbRss!)}` : ''}   (goal: RSS within ±10 %)`
    )
  } finally {
    await server.stop()
  }
}
