// GraphQL vs REST on the same server and database, in one run: `dealsById` vs
// GET /api/v1/deals/:id, and a 20-item page with one nested relation (`dealsMany(limit: 20)
// { … company { … } }`) vs GET /api/v1/deals?__perPage=20&__include=company. Database, server
// and load generator run in separate processes.
// Usage: pnpm --filter @svc/graphql bench   (MONGODB_URI=… for a real MongoDB; BENCH_SECONDS, BENCH_ROUNDS)
import { BenchProcesses, compareLoads, cpuFrom, describeRun, type Load } from '@svc/testkit/bench'

function graphql (label: string, url: string, headers: Record<string, string>, query: string): Load {
  return {
    label,
    url,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query })
  }
}

const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_graphql')
  const { port, id, token } = await processes.script<{ port: number; id: string; token: string }>(
    new URL('./server.ts', import.meta.url),
    [db.uri]
  )
  const base = `http://127.0.0.1:${port}`
  const auth = { authorization: `Bearer ${token}` }
  const fields = '_id title amount stage closeDate userId createdAt updatedAt'
  const pairs: Array<[Load, Load]> = [
    [
      { label: 'GET /api/v1/deals/:id', url: `${base}/api/v1/deals/${id}`, headers: auth },
      graphql('GraphQL dealsById', `${base}/graphql`, auth, `{ dealsById(_id: "${id}") { ${fields} } }`)
    ],
    [
      { label: 'GET 20 deals + company', url: `${base}/api/v1/deals?__perPage=20&__include=company`, headers: auth },
      graphql(
        'GraphQL 20 deals+company',
        `${base}/graphql`,
        auth,
        `{ dealsMany(limit: 20) { ${fields} company { _id name industry } } }`
      )
    ]
  ]
  // Each GraphQL answer must be real data, not an error, before it is timed.
  for (const [, g] of pairs) {
    const probe = (await (await fetch(g.url, { method: 'POST', headers: g.headers, body: g.body })).json()) as {
      data?: unknown
      errors?: unknown
    }
    if (probe.errors !== undefined || probe.data == null) {
      throw new Error(`${g.label} probe failed: ${JSON.stringify(probe)}`)
    }
  }
  console.log(describeRun(db.label))
  for (const pair of pairs) {
    const [rest, gql] = await compareLoads(pair, cpuFrom(`${base}/cpu`))
    for (const m of [rest, gql]) {
      console.log(
        `${m.label.padEnd(26)} ${m.rps.toFixed(0).padStart(6)} req/s   server CPU ${m.cpuUs.toFixed(0).padStart(5)} µs/request`
      )
    }
    console.log(
      `ratio GraphQL/REST: ${(gql.rps / rest.rps).toFixed(2)} (throughput)   ${(rest.cpuUs / gql.cpuUs).toFixed(2)} (CPU per request)   goal >= 0.80`
    )
  }
} finally {
  processes.stop()
}
