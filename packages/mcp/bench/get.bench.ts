// get_<path> over MCP (one JSON-RPC tools/call per POST /mcp) vs GET /api/v1/<path>/:id on the
// same server and database. Database, server and load generator run in separate processes.
// Usage: pnpm --filter @svc/mcp bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun, type Load } from '@svc/testkit/bench'

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_mcp')
  const { port, id, token } = await processes.script<{ port: number; id: string; token: string }>(
    new URL('./server.ts', import.meta.url),
    [db.uri]
  )
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${token}` }
  const rest: Load = { label: 'GET /api/v1/deals/:id', url: `${base}/api/v1/deals/${id}`, headers: auth }
  const mcp: Load = {
    label: 'MCP get_deals',
    url: `${base}/mcp`,
    method: 'POST',
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18'
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_deals', arguments: { id } }
    })
  }
  // The MCP answer must be a real record, not a tool error, before it is timed.
  const probe = (await (await fetch(mcp.url, { method: 'POST', headers: mcp.headers, body: mcp.body })).json()) as {
    result?: { isError?: boolean; structuredContent?: { _id?: string } }
  }
  if (probe.result?.isError === true || probe.result?.structuredContent?._id !== id) {
    throw new Error(`MCP probe failed: ${JSON.stringify(probe)}`)
  }
  console.log(describeRun(db.label))
  const [r, m] = await compareLoads([rest, mcp], cpuFrom(`${base}/cpu`))
  for (const x of [r, m]) {
    console.log(
      `${x.label.padEnd(24)} ${x.rps.toFixed(0).padStart(6)} req/s   server CPU ${x.cpuUs.toFixed(0).padStart(5)} µs/request`
    )
  }
  console.log(
    `ratio MCP/REST: ${(m.rps / r.rps).toFixed(2)} (throughput)   ${(r.cpuUs / m.cpuUs).toFixed(2)} (CPU per request)   goal >= 0.70`
  )
} finally {
  processes.stop()
}
