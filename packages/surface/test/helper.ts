import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Db } from 'mongodb'
import svcCore, { svcServerOptions, type SvcCoreOptions } from '@svc/core'
import { getTestDb, signToken, type Teardownable } from '@svc/testkit'
import svcSurface from '../src/index.js'
import type { SurfaceOptions } from '../src/types.js'

export const JWT_SECRET = 'surface-test-secret-0123456789abcdef'

export const SCHEMAS = [
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'secret', type: String, acl: { read: ['admin'] } }
    ],
    aggregations: [{ name: 'count', pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }], cache: { ttlSeconds: 60 } }]
  }
]

/** One database per test file: apps built with `buildApp` may share it (two replicas of one service). */
export async function testDb (t: Teardownable): Promise<Db> {
  return (await getTestDb(t)).db
}

/** @svc/surface registered before @svc/core (as the reference server does, its shared stores passed on), on `db`; closed in teardown. */
export async function buildApp (
  t: Teardownable,
  db: Db,
  opts: SurfaceOptions = {},
  server: FastifyServerOptions = {},
  core: Partial<SvcCoreOptions> = {}
): Promise<FastifyInstance> {
  const app = Fastify({ ...svcServerOptions, logger: false, ...server })
  await app.register(svcSurface, opts)
  const { aggregationCache, usageStore } = app.svcSurface
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: SCHEMAS,
    ...(aggregationCache !== null ? { aggregationCache } : {}),
    costStore: usageStore,
    ...core
  })
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}

export function bearer (userId: string, roles: string[] = ['user']): { authorization: string } {
  return {
    authorization: `Bearer ${signToken({ user_id: userId, email: `${userId}@example.test`, roles }, JWT_SECRET)}`
  }
}
