// A live feed in an existing Fastify app, and a Node reader of it. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/realtime/examples/basic.ts
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import realtime from '@svc/realtime'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  schemas: [{ path: 'tasks', collection: 'tasks', fields: [{ name: 'title', type: String, required: true }] }]
})
// Resume cursors stay good for 2 hours; idle streams get a comment line every 10 s.
await app.register(realtime, { retentionHours: 2, heartbeatSeconds: 10 })
app.addHook('onClose', async () => {
  await client.close()
})
const base = await app.listen({ port: 3000 })

// A reader: every `tasks` event of the token's tenant, one JSON object per line.
const token = app.svc.auth.mintAccessToken({
  user_id: '65f000000000000000000001',
  email: 'demo@example.test',
  roles: ['user']
})
const res = await fetch(`${base}/api/v1/_events?types=tasks.*`, { headers: { authorization: `Bearer ${token}` } })
const decoder = new TextDecoder()
let buffer = ''
for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
  buffer += decoder.decode(chunk, { stream: true })
  for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
    const data = buffer
      .slice(0, end)
      .split('\n')
      .find((line) => line.startsWith('data: '))
    buffer = buffer.slice(end + 2)
    if (data !== undefined) console.log(data.slice(6))
  }
}
