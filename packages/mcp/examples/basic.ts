// MCP tools for AI agents in an existing Fastify app. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/mcp/examples/basic.ts
// then point an MCP client at http://127.0.0.1:3000/mcp with `Authorization: Bearer <token>`.
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import svcMcp from '@svc/mcp'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  schemas: [
    {
      path: 'tasks',
      collection: 'tasks',
      fields: [
        { name: 'title', type: String, required: true, searchable: true },
        {
          name: 'status',
          type: String,
          stateMachine: { initial: 'open', states: ['open', 'done'], transitions: { open: ['done'], done: ['open'] } }
        }
      ]
    }
  ]
})
await app.register(softDelete)
// list_tasks, get_tasks, search_tasks, create_tasks, update_tasks, delete_tasks, restore_tasks, list_resources.
await app.register(svcMcp, { maxResultChars: 50_000 })
// A token for the MCP client (development only): the same JWTs as the REST API.
app.log.info(
  {
    token: app.svc.auth.mintAccessToken(
      { user_id: '65f000000000000000000001', email: 'agent@example.com', roles: ['user'] },
      3600
    )
  },
  'bearer for the MCP client'
)
app.addHook('onClose', async () => {
  await client.close()
})
await app.listen({ port: 3000 })
