// A realtime server for the benchmarks, in a process of its own (so the load generator never
// shares its event loop): core + realtime on the database URI given as the first argument,
// listening on a free port. First stdout line: `{ url, mode }` (mode: how the event log follows
// itself, 'change-stream' or 'poll'). GET /bench/memory answers its RSS and heap after a GC.
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import realtime from '../src/index.js'

import { BENCH_SCHEMAS, BENCH_SECRET } from './settings.js'

const uri = process.argv[2]
if (uri === undefined) throw new Error('usage: server.ts <mongodb uri>')
const client = new MongoClient(uri, { maxPoolSize: 50 })
await client.connect()
const app = Fastify({ logger: false })
await app.register(svcCore, { db: client.db(), jwtSecret: BENCH_SECRET, schemas: BENCH_SCHEMAS })
await app.register(realtime, { maxStreamsPerUser: 1_000_000 })
app.get('/bench/memory', async () => {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed }
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
console.log(JSON.stringify({ url, mode: app.svc.eventLog.mode }))
const stop = (): void => {
  app
    .close()
    .then(async () => await client.close())
    .finally(() => process.exit(0))
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
