/**
 * `pnpm --filter @svc/server bench:surfaces`: one record read three ways against the same real
 * `svc start` (compiled, every plugin, devdb as a separate process): REST GET /api/v1/notes/:id,
 * GraphQL `notesById` and MCP `get_notes`, in alternating rounds. Prints req/s and the server's
 * CPU µs per request (from /proc: steadier than req/s on a shared machine) and each surface's
 * ratio to REST. Goals (issue 23): GraphQL ≥ 0.8×, MCP ≥ 0.7×.
 * BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS as in @svc/testkit/bench.
 */
import { compareLoads, describeRun, type Load } from '@svc/testkit/bench'
import { cpuOf, headers, seed, serve } from './serve.js'

const server = await serve({ external: true })
try {
  const [id] = await seed(server.url, 20)
  const post = { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream' } }
  const loads: Load[] = [
    { label: 'REST GET /api/v1/notes/:id', url: `${server.url}/api/v1/notes/${id}`, headers },
    {
      label: 'GraphQL notesById',
      url: `${server.url}/graphql`,
      ...post,
      body: JSON.stringify({ query: `{ notesById(_id: "${id}") { _id title n userId createdAt updatedAt } }` })
    },
    {
      label: 'MCP get_notes',
      url: `${server.url}/mcp`,
      ...post,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_notes', arguments: { id } }
      })
    }
  ]
  // Each answer must be the record, not an error, before it is timed.
  for (const l of loads) {
    const text = await (await fetch(l.url, { method: l.method, headers: l.headers, body: l.body })).text()
    if (!text.includes(id) || text.includes('"isError":true') || text.includes('"errors"')) {
      throw new Error(`${l.label} probe failed: ${text}`)
    }
  }
  console.log(describeRun('@svc/devdb (child process)'))
  const [rest, ...others] = await compareLoads(loads, async () => cpuOf(server.pid))
  for (const m of [rest, ...others]) {
    console.log(
      `${m.label.padEnd(28)} ${m.rps.toFixed(0).padStart(6)} req/s   server CPU ${m.cpuUs.toFixed(0).padStart(5)} µs/request`
    )
  }
  for (const [m, goal] of others.map((m, i) => [m, [0.8, 0.7][i]] as const)) {
    console.log(
      `ratio ${m.label.split(' ')[0]}/REST: ${(m.rps / rest.rps).toFixed(2)} (throughput)   ${(rest.cpuUs / m.cpuUs).toFixed(2)} (CPU per request)   goal >= ${goal.toFixed(2)}`
    )
  }
} finally {
  await server.stop()
}
