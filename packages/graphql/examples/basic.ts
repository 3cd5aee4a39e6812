// GraphQL in an existing Fastify app. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/graphql/examples/basic.ts
// then POST queries to http://127.0.0.1:3000/graphql with `Authorization: Bearer <token>`
// (GraphiQL at http://127.0.0.1:3000/graphiql).
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import svcGraphql from '@svc/graphql'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  schemas: [
    {
      path: 'projects',
      collection: 'projects',
      fields: [{ name: 'name', type: String, required: true }],
      relations: { tasks: { hasMany: 'tasks', fk: 'projectId' } }
    },
    {
      path: 'tasks',
      collection: 'tasks',
      fields: [
        { name: 'title', type: String, required: true, searchable: true },
        { name: 'projectId', type: String }
      ],
      relations: { project: { belongsTo: 'projects', fk: 'projectId' } }
    }
  ]
})
// Before GraphQL: it generates `includeDeleted` and `<path>Restore` from it.
await app.register(softDelete)
// projectsById, projectsMany, tasksById, tasksMany, tasksSearch; nested `tasks` and `project`.
await app.register(svcGraphql, { maxDepth: 8 })
// A token for the client (development only): the same JWTs as the REST API.
app.log.info(
  {
    token: app.svc.auth.mintAccessToken(
      { user_id: '65f000000000000000000001', email: 'dev@example.com', roles: ['user'] },
      3600
    )
  },
  'bearer for GraphQL requests'
)
app.addHook('onClose', async () => {
  await client.close()
})
await app.listen({ port: 3000 })
