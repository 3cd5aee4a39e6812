// Child process of transfer.bench.ts: core + @svc/files on the given database, listening on
// 127.0.0.1. Samples its own RSS every 2 ms; `POST /_bench/reset` collects garbage and starts a
// new peak, `GET /_bench/rss` answers { baseline, peak } in bytes. Prints { port } as one JSON line.
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import files from '../src/index.js'

const [uri, uploadsDir, s3Endpoint] = process.argv.slice(2)
const SECRET = 'bench-secret-0123456789abcdef0123'
const client = await new MongoClient(uri).connect()
const storage = s3Endpoint !== undefined && s3Endpoint !== '' ? 's3' : 'local'
const app = Fastify({ logger: false })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: SECRET,
  publicBaseUrl: 'http://127.0.0.1',
  schemas: [
    {
      path: 'docs',
      fields: [
        { name: 'title', type: String },
        { name: 'blob', type: 'File', file: { maxBytes: 16 * 1024 * 1024, storage } }
      ]
    }
  ]
})
await app.register(files, {
  uploadsDir,
  reconcileIntervalMs: 0,
  ...(storage === 's3' ? { s3: { bucket: 'bench', region: 'us-east-1', endpoint: s3Endpoint, ...s3Tuning() } } : {})
})

// BENCH_S3_QUEUE overrides the s3 option queueSize.
function s3Tuning (): { queueSize?: number } {
  const q = process.env.BENCH_S3_QUEUE
  return q !== undefined ? { queueSize: Number(q) } : {}
}

let baseline = process.memoryUsage.rss()
let peak = baseline
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss())
}, 2).unref()
const gc = (globalThis as { gc?: () => void }).gc
app.post('/_bench/reset', async () => {
  gc?.()
  await new Promise((resolve) => setTimeout(resolve, 50))
  baseline = process.memoryUsage.rss()
  peak = baseline
  return { baseline }
})
app.get('/_bench/rss', async () => ({ baseline, peak: Math.max(peak, process.memoryUsage.rss()) }))
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(
  JSON.stringify({ port: typeof address === 'object' && address != null ? address.port : 0, storage }) + '\n'
)
process.on('SIGTERM', () => {
  void app.close().then(async () => {
    await client.close()
    process.exit(0)
  })
})
