// The realtime feed the subscribe tests follow: core, soft delete and realtime on the example CRM
// schemas, listening on 127.0.0.1 (`port` again to restart it where a subscription reconnects).
import type { Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import realtime from '@svc/realtime'
import { crm } from './fixtures/schemas.js'
import { JWT_SECRET } from './helper.js'

export async function serveFeed (t: Test, db: Db, port = 0): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: crm,
    eventLog: { pollMs: 20, leaseMs: 1500 }
  })
  await app.register(softDelete, { sweepIntervalMs: 0 })
  await app.register(realtime)
  t.teardown(async () => await app.close())
  const url = await app.listen({ port, host: '127.0.0.1' })
  return { app, url }
}

export async function until (check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
