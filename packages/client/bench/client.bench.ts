// Figures for the client's hot paths: generating the CRM client, building a list query string,
// and the request layer's overhead over a bare fetch to the same local HTTP peer.
// Run: npx -y pnpm@10 --filter @svc/client bench
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { generateClient, type DescribeDocument } from '../src/generate/index.js'
import { listParams, Transport } from '../src/index.js'

function time (label: string, n: number, fn: () => unknown): void {
  for (let i = 0; i < Math.min(n, 200); i++) fn() // warm-up
  const start = performance.now()
  for (let i = 0; i < n; i++) fn()
  const ms = performance.now() - start
  console.log(`${label.padEnd(44)} ${((ms / n) * 1000).toFixed(1).padStart(9)} µs/op  (${n} ops)`)
}

async function timeAsync (label: string, n: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await fn()
  const start = performance.now()
  for (let i = 0; i < n; i++) await fn()
  const us = ((performance.now() - start) / n) * 1000
  console.log(`${label.padEnd(44)} ${us.toFixed(1).padStart(9)} µs/op  (${n} sequential requests, 20-record page)`)
  return us
}

// A describe document shaped like the CRM's: 5 schemas of 12 fields, relations, a state machine.
const field = (name: string, type: string): Record<string, unknown> => ({ name, type, required: false })
const doc = {
  version: 'v1',
  schemas: ['companies', 'contacts', 'deals', 'notes', 'tasks'].map((path, i, all) => ({
    version: 'v1',
    path,
    softDelete: true,
    audit: true,
    fields: [
      field('title', 'String'),
      field('amount', 'Number'),
      field('done', 'Boolean'),
      field('at', 'date'),
      field('tags', '[String]'),
      field('meta', 'Mixed'),
      { name: 'address', type: 'Object', required: false, fields: [field('city', 'String'), field('zip', 'String')] },
      { name: 'stage', type: 'String', required: false, enum: ['a', 'b', 'c', 'd'] },
      field('ownerId', 'String'),
      field('n2', 'Number'),
      field('s2', 'String'),
      field('d2', 'date')
    ],
    relations: { next: { kind: 'belongsTo', target: all[(i + 1) % all.length], fk: 'ownerId' } },
    aggregations: [{ name: 'byStage', params: [{ name: 'min', type: 'Number', required: false }] }],
    stateMachines: {
      stage: { initial: 'a', states: ['a', 'b', 'c', 'd'], transitions: { a: ['b'], b: ['c', 'a'], c: ['d'], d: [] } }
    },
    fileFields: [],
    endpoints: {
      rest: [
        { method: 'POST', path: `/api/v1/${path}/:id/restore` },
        { method: 'GET', path: `/api/v1/${path}/:id/history` }
      ]
    }
  }))
} as unknown as DescribeDocument

time('generateClient (5 schemas, 12 fields each)', 500, () => generateClient(doc))
console.log(`  generated size: ${generateClient(doc)['index.ts'].length} characters`)
const query = {
  filter: { amount: { $gte: 1000 }, stage: { $in: ['a', 'b'] }, title: 'x', at: new Date(0) },
  sort: ['amount:desc', 'title'],
  page: 3,
  perPage: 50,
  include: ['next']
}
time('listParams (4 filters, sort, paging, include)', 100_000, () => listParams(query).toString())

const body = JSON.stringify({
  results: Array.from({ length: 20 }, (_v, i) => ({
    _id: String(i).padStart(24, '0'),
    title: `record ${i}`,
    amount: i
  })),
  totalResults: 20,
  page: 1,
  perPage: 20,
  totalPages: 1,
  nextPage: null,
  prevPage: null
})
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r' }).end(body)
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const http = new Transport({ baseUrl: url, accessToken: 'token' })
// Alternating rounds, best of each: machine noise hits both sides alike.
const bare: number[] = []
const ours: number[] = []
for (let round = 1; round <= 3; round++) {
  bare.push(
    await timeAsync(
      `bare fetch + res.json(), round ${round}`,
      1000,
      async () =>
        await (await fetch(`${url}/api/v1/deals?__perPage=20`, { headers: { authorization: 'Bearer token' } })).json()
    )
  )
  ours.push(
    await timeAsync(
      `Transport.request GET, round ${round}`,
      1000,
      async () =>
        await http.request({ method: 'GET', path: '/api/v1/deals', query: new URLSearchParams({ __perPage: '20' }) })
    )
  )
}
const [b, o] = [Math.min(...bare), Math.min(...ours)]
console.log(
  `  request layer overhead (best rounds): ${(o - b).toFixed(1)} µs per request (${((o / b - 1) * 100).toFixed(1)} %)`
)
server.close()
