import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore, { svcServerOptions } from '@svc/core'
import svcSurface from '@svc/surface'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/app').connect()
const app = Fastify({ ...svcServerOptions, logger: true })
await app.register(svcSurface, {
  metrics: { token: process.env.METRICS_TOKEN },
  cors: { origins: ['https://app.example.com'] },
  rateLimit: { apiPerMin: 600, authPerMin: 10, authPerEmailPerMin: 5 },
  redis: process.env.REDIS_URL
})
const shared = app.svcSurface.aggregationCache // a Redis store with REDIS_URL, else null
await app.register(svcCore, {
  db: client.db(),
  schemaDir: './schema',
  jwtSecret: process.env.JWT_SECRET ?? 'change-me',
  ...(shared !== null ? { aggregationCache: shared } : {}),
  // The rate limits' counters: tenants' cost budgets count in the same store (Redis-shared with REDIS_URL).
  costStore: app.svcSurface.usageStore
})
app.addHook('onClose', async () => await client.close())
await app.listen({ port: 3000 })
