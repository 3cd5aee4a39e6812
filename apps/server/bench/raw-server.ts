// Child process of reference.bench.ts: the hand-written Fastify route (core's bench baseline) on
// the reference server's database, for its `notes`. Prints `{ rawPort, pid }` as one line.
import { MongoClient } from 'mongodb'
import { rawApp } from '../../../packages/core/bench/raw-app.js'
import { SECRET } from './serve.js'

const client = await new MongoClient(process.argv[2]).connect()
const raw = await rawApp(client, client.db(), {
  secret: SECRET,
  collection: 'notes',
  created: (body) => (typeof body.title === 'string' ? { title: body.title, n: body.n } : null),
  updated: (body) => (typeof body.n === 'number' ? { n: body.n } : null)
})
await raw.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(
  JSON.stringify({ rawPort: (raw.server.address() as { port: number }).port, pid: process.pid }) + '\n'
)
process.on('SIGTERM', () => {
  raw
    .close()
    .then(async () => await client.close())
    .then(
      () => process.exit(0),
      () => process.exit(1)
    )
})
