// Audit log in an existing Fastify app. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/audit/examples/basic.ts
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import audit from '@svc/audit'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  schemas: [
    {
      path: 'invoices',
      collection: 'invoices',
      fields: [
        { name: 'total', type: Number, required: true },
        { name: 'note', type: String, acl: { read: ['finance'] } }
      ]
    },
    // No history for `sessions`: no rows, no /history route.
    { path: 'sessions', collection: 'sessions', audit: false, fields: [{ name: 'agent', type: String }] }
  ]
})
await app.register(softDelete) // optional: adds `delete` tombstones and `restore` rows
await app.register(audit)
// GET /api/v1/invoices/:id/history now answers who changed an invoice and what it was before.
app.addHook('onClose', async () => {
  await client.close()
})
await app.listen({ port: 3000 })
