import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore, { svcServerOptions } from '@svc/core'

const client = await new MongoClient(process.env.MONGODB_URI).connect()
// The router's and Node's own refusals (an over-long id, headers over 16 KB) in svc's envelope.
const app = Fastify({ ...svcServerOptions, logger: true })
app.get('/', async () => ({ hello: 'your existing routes keep working' }))
await app.register(svcCore, {
  db: client.db(),
  schemaDir: './schema',
  jwtSecret: process.env.JWT_SECRET,
  accessTokenTtl: '15m'
})
app.addHook('onClose', async () => await client.close())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
