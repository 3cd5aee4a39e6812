// File fields in an existing Fastify app. Run from the repository root:
//   MONGODB_URI=mongodb://127.0.0.1:27017/demo node --conditions=@svc/source --import tsx packages/files/examples/basic.ts
// then, with a bearer token for JWT_SECRET (e.g. `svc token mint`):
//   curl -X POST localhost:3000/api/v1/invoices -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"total":10}'
//   curl -X POST localhost:3000/api/v1/invoices/$ID/scan -H "authorization: Bearer $T" -F file=@scan.pdf
//   curl localhost:3000/api/v1/invoices/$ID/scan -H "authorization: Bearer $T"   # → FileMeta + a signed url
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import files from '@svc/files'

const client = await new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/demo').connect()
const app = Fastify({ logger: true })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: process.env.JWT_SECRET ?? 'dev-only-secret',
  publicBaseUrl: 'http://127.0.0.1:3000', // file URLs are absolute
  schemas: [
    {
      path: 'invoices',
      fields: [
        { name: 'total', type: Number, required: true },
        // Private (signed links valid 300 s), PDF only, at most 5 MB, on local disk.
        { name: 'scan', type: 'File', file: { maxBytes: 5 * 1024 * 1024, accept: ['application/pdf'] } },
        // Public: a stable URL; on S3 when the `s3` option below is given.
        {
          name: 'logo',
          type: 'File',
          file: {
            accept: ['image/*'],
            visibility: 'public',
            storage: process.env.STORAGE_S3_BUCKET !== undefined ? 's3' : 'local'
          }
        }
      ]
    }
  ]
})
await app.register(softDelete) // optional: tombstoned invoices keep their files until purged
await app.register(files, {
  uploadsDir: './uploads',
  ...(process.env.STORAGE_S3_BUCKET !== undefined
    ? {
        s3: {
          bucket: process.env.STORAGE_S3_BUCKET,
          region: process.env.STORAGE_S3_REGION ?? 'us-east-1',
          endpoint: process.env.STORAGE_S3_ENDPOINT
        }
      }
    : {})
})
app.addHook('onClose', async () => {
  await client.close()
})
await app.listen({ port: 3000 })
