// Child process of reference.bench.ts: the hand-written Fastify route (core's bench baseline) on
// the reference server's database, for its `notes`. Its writes commit the audit row @svc/audit
// writes for them (the same fields: actor, request id, before, after, diff) into a collection
// with the history index @svc/audit reads it by. Prints `{ rawPort, pid }` as one line.
import { MongoClient, ObjectId } from 'mongodb'
import { diffRecords } from '@svc/audit'
import { rawApp } from '../../../packages/core/bench/raw-app.js'
import { SECRET } from './serve.js'

const client = await new MongoClient(process.argv[2]).connect()
const raw = await rawApp(client, client.db(), {
  secret: SECRET,
  collection: 'notes',
  created: (body) => (typeof body.title === 'string' ? { title: body.title, n: body.n } : null),
  updated: (body) => (typeof body.n === 'number' ? { n: body.n } : null),
  audit: {
    collection: 'bench_audit',
    index: { userId: 1, path: 1, recordId: 1, at: -1, _id: -1 },
    row: (w) => ({
      _id: new ObjectId(),
      action: w.action === 'created' ? 'create' : 'update',
      path: 'notes',
      version: 'v1',
      actor: { kind: 'user', userId: w.claims.user_id, roles: w.claims.roles ?? [], email: w.claims.email },
      requestId: w.requestId,
      at: w.at,
      recordId: w.recordId,
      userId: w.after.userId,
      before: w.before,
      after: w.after,
      diff: diffRecords(w.before, w.after)
    })
  }
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
