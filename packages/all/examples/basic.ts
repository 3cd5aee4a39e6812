// Every svc plugin in an existing Fastify app, on the repository's example schemas. From the root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo JWT_SECRET=… node --conditions=@svc/source --import tsx packages/all/examples/basic.ts
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcAll from '@svc/all'

const uri = process.env.MONGODB_URI
const jwtSecret = process.env.JWT_SECRET
if (uri === undefined || jwtSecret === undefined) throw new Error('set MONGODB_URI and JWT_SECRET')
const client = await new MongoClient(uri).connect()
const app = Fastify({ logger: true })
app.get('/hello', async () => ({ hello: 'your own routes keep working' }))
await app.register(svcAll, {
  core: {
    db: client.db(),
    jwtSecret,
    schemaDir: new URL('../../../schema', import.meta.url).pathname,
    publicBaseUrl: 'http://127.0.0.1:3000'
  },
  files: { uploadsDir: './uploads' }
})
app.addHook('onClose', async () => await client.close())
await app.listen({ port: 3000 })
