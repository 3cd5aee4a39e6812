// An existing Fastify app that adds svc: its own routes stay as they are, @svc/core adds
// /register, /login, /auth/refresh and /api/v1/todos on the app's own MongoDB connection.
//
//   npx -y pnpm@10 --filter @svc/examples start                 (embedded database)
//   MONGODB_URI=mongodb://localhost:27017/example JWT_SECRET=… npx -y pnpm@10 --filter @svc/examples start
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import svcCore, { svcServerOptions } from '@svc/core'
import { DatabaseUnavailableError, openExampleDatabase } from './database.js'

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

async function main (): Promise<void> {
  let jwtSecret = process.env.JWT_SECRET
  if (jwtSecret === undefined || jwtSecret === '') {
    jwtSecret = randomBytes(32).toString('hex')
    process.stderr.write('JWT_SECRET is unset: using a random secret; tokens stop working at restart\n')
  }
  const database = await openExampleDatabase(process.env.MONGODB_URI)
  const app = await buildExampleApp({ db: database.db, jwtSecret })
  app.addHook('onClose', async () => await database.close())
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void app.close()
    })
  }
  await app.listen({ port: Number(process.env.PORT ?? 3000) })
  app.log.info(`example app on ${database.where}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(
      err instanceof DatabaseUnavailableError ? `${err.message}\n` : `${(err as Error).stack ?? String(err)}\n`
    )
    process.exit(1)
  })
}
