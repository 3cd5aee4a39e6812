// An existing Fastify app that adds svc: its own routes stay as they are, @svc/core adds
// /register, /login, /auth/refresh and /api/v1/todos on the app's own MongoDB connection.
//
//   MONGODB_URI=mongodb://localhost:27017/example JWT_SECRET=change-me npm start
import Fastify, { type FastifyInstance } from 'fastify'
import { MongoClient, type Db } from 'mongodb'
import { fileURLToPath } from 'node:url'
import svcCore, { svcServerOptions } from '@svc/core'

export interface ExampleOptions {
  db: Db
  jwtSecret: string
  logger?: boolean
}

export async function buildExampleApp (opts: ExampleOptions): Promise<FastifyInstance> {
  // svcServerOptions: the router's and Node's own refusals (long ids, 431) in svc's error envelope.
  const app = Fastify({ ...svcServerOptions, logger: opts.logger ?? true })

  // The app's own, pre-existing route.
  app.get('/hello', async () => ({ hello: 'world' }))

  await app.register(svcCore, {
    db: opts.db,
    schemaDir: fileURLToPath(new URL('./schema', import.meta.url)),
    jwtSecret: opts.jwtSecret,
    accessTokenTtl: '15m'
  })

  // Your own routes can use svc's authentication too.
  app.get('/me', async (request) => await app.svc.auth.authenticate(request))

  return app
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const uri = process.env.MONGODB_URI
  const jwtSecret = process.env.JWT_SECRET
  if (uri == null || jwtSecret == null) {
    process.stderr.write('set MONGODB_URI and JWT_SECRET\n')
    process.exit(1)
  }
  const client = await new MongoClient(uri).connect()
  const app = await buildExampleApp({ db: client.db(), jwtSecret })
  app.addHook('onClose', async () => await client.close())
  await app.listen({ port: Number(process.env.PORT ?? 3000) })
}
