// What pricing a document costs (issue 21): µs per analysis of large documents against the
// example CRM schema — the standard introspection query, a 300-alias query with nested relations,
// 20,000 `__typename` aliases, and fragment bombs (each fragment spreading the next twice),
// whose naive walk doubles per fragment. Each analysis is the one the server runs before a
// document executes (variables known); figures are medians over BENCH_ROUNDS × 1 s of repeats.
// Usage: pnpm --filter @svc/graphql bench:pricing
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import { getIntrospectionQuery, parse } from 'graphql'
import svcCore from '@svc/core'
import svcAudit from '@svc/audit'
import svcSoftDelete from '@svc/softdelete'
import { BenchProcesses, benchSettings } from '@svc/testkit/bench'
import { buildSchema } from '../src/index.js'
import { analyse } from '../src/cost/analysis.js'
import { introspectionTotals } from '../src/cost/introspection.js'

function bomb (n: number): string {
  let out = '{ companiesMany { ...F0 } }\n'
  for (let i = 0; i < n; i++) out += `fragment F${i} on Companies { name ...F${i + 1} ...F${i + 1} }\n`
  return `${out}fragment F${n} on Companies { name contacts { fullName email } }\n`
}

const aliases = (n: number, body: (i: number) => string): string =>
  Array.from({ length: n }, (_, i) => body(i)).join(' ')
const documents: Array<[string, string]> = [
  ['introspection (getIntrospectionQuery)', getIntrospectionQuery()],
  [
    '300 aliases, 2 relation levels',
    `{ ${aliases(300, (i) => `a${i}: companiesMany(limit: 50) { name industry contacts { fullName email deals { title amount } } }`)} }`
  ],
  ['20,000 __typename aliases', `{ contactsMany { ${aliases(20_000, (i) => `t${i}: __typename`)} } }`],
  ['fragment bomb, 26 fragments', bomb(26)],
  ['fragment bomb, 40 fragments', bomb(40)]
]

const { rounds } = benchSettings()
const processes = new BenchProcesses()
try {
  const db = await processes.database('svc_bench_graphql_pricing')
  const client = await new MongoClient(db.uri).connect()
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db: client.db(),
    jwtSecret: 'bench-secret-0123456789abcdef0123',
    schemaDir: fileURLToPath(new URL('../../../schema', import.meta.url))
  })
  await app.register(svcSoftDelete, { sweepIntervalMs: 0 })
  await app.register(svcAudit)
  await app.ready()
  const { schema } = buildSchema(app.svc)
  const options = {
    schema,
    pageSize: app.svc.config.pageSize,
    introspection: introspectionTotals(schema),
    variables: {}
  }
  console.log(`pricing a GraphQL document (example CRM schema; ${rounds} rounds of 1 s; median µs per analysis)`)
  for (const [label, source] of documents) {
    const document = parse(source)
    const medians: number[] = []
    let result = analyse(document, options)
    for (let r = 0; r < rounds; r++) {
      let n = 0
      const start = performance.now()
      while (performance.now() - start < 1000) {
        result = analyse(document, options)
        n++
      }
      medians.push(((performance.now() - start) * 1000) / n)
    }
    medians.sort((a, b) => a - b)
    const us = medians[Math.floor(medians.length / 2)]
    console.log(
      `${label.padEnd(40)} ${String(source.length).padStart(7)} chars  ${us.toFixed(1).padStart(9)} µs/op   price ${String(result.cost)}`
    )
  }
  await app.close()
  await client.close()
} finally {
  processes.stop()
}
