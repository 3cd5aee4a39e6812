import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { ObjectId, type Db } from 'mongodb'
import svcCore from '@svc/core'
import { getTestDb, signToken, type Teardownable } from '@svc/testkit'
import softDelete from '../src/index.js'
import type { SoftDeleteOptions } from '../src/types.js'

export const JWT_SECRET = 'softdelete-test-secret-0123456789'

/** Notes with soft delete on (default), `logs` with it off, `tags` with a unique name per tenant. */
export const SCHEMAS = [
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'body', type: String, required: true },
      { name: 'pinned', type: Boolean, default: false }
    ],
    acl: { delete: ['moderator'] }
  },
  { path: 'logs', collection: 'logs', softDelete: false, fields: [{ name: 'line', type: String, required: true }] },
  {
    path: 'tags',
    collection: 'tags',
    fields: [{ name: 'name', type: String, required: true }],
    compositeIndex: [{ userId: 1, name: 1 }]
  }
]

export interface BuildOptions {
  schemas?: unknown[]
  softDelete?: SoftDeleteOptions | false
  /** Registered after the plugins, before ready (e.g. extra test plugins). */
  before?: (app: FastifyInstance) => void | Promise<void>
}

/** core + @svc/softdelete on a fresh database; closed in teardown. */
export async function buildApp (t: Teardownable, opts: BuildOptions = {}): Promise<{ app: FastifyInstance; db: Db }> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: opts.schemas ?? SCHEMAS })
  if (opts.softDelete !== false) await app.register(softDelete, { sweepIntervalMs: 0, ...opts.softDelete })
  await opts.before?.(app)
  t.teardown(async () => await app.close())
  await app.ready()
  return { app, db }
}

export interface TestUser {
  userId: string
  headers: { authorization: string }
}

export function makeUser (claims: Record<string, unknown> = {}): TestUser {
  const userId = typeof claims.user_id === 'string' ? claims.user_id : new ObjectId().toHexString()
  const token = signToken(
    { user_id: userId, email: `u-${randomBytes(3).toString('hex')}@example.test`, roles: ['user'], ...claims },
    JWT_SECRET
  )
  return { userId, headers: { authorization: `Bearer ${token}` } }
}

/** A settable clock for the sweep. */
export function fakeClock (start = new Date('2026-01-01T00:00:00Z')): {
  now: () => Date
  advanceDays: (d: number) => void
} {
  let t = start.getTime()
  return {
    now: () => new Date(t),
    advanceDays: (d) => {
      t += d * 24 * 60 * 60 * 1000
    }
  }
}
