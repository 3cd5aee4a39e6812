// Soft delete in an existing Fastify app. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/softdelete/examples/basic.ts
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  schemas: [
    // Tombstones of `tasks` are purged 30 days after their deletion.
    {
      path: 'tasks',
      collection: 'tasks',
      softDelete: { retentionDays: 30 },
      fields: [{ name: 'title', type: String, required: true }]
    },
    // `pings` opt out: DELETE removes them at once and there is no restore route.
    { path: 'pings', collection: 'pings', softDelete: false, fields: [{ name: 'at', type: Date }] }
  ]
})
await app.register(softDelete, { sweepIntervalMs: 60 * 60 * 1000 })
// @svc/files does this for file fields: blobs go once their record is purged for good.
app.svc.services.get('tasks').onPurge(({ docs }) => {
  app.log.info({ n: docs.length }, 'tasks purged')
})
app.addHook('onClose', async () => {
  await client.close()
})
await app.listen({ port: 3000 })
