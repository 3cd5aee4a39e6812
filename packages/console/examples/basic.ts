// The console next to svc in an existing Fastify app: register it after @svc/core.
import Fastify from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import svcConsole from '@svc/console'

export async function buildApp (db: Db): Promise<ReturnType<typeof Fastify>> {
  const app = Fastify({ logger: true })
  await app.register(svcCore, {
    db,
    schemaDir: './schema',
    jwtSecret: process.env.JWT_SECRET ?? 'change-me-to-32-characters-or-more'
  })
  // Pages at /console (the people behind the API sign in with their own accounts there).
  await app.register(svcConsole, { prefix: '/console' })
  return app
}
