import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { ObjectId, type Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import { getTestDb, signToken, type Teardownable } from '@svc/testkit'
export { DURABLE_MODES } from '@svc/testkit'
import audit from '../src/index.js'
import type { AuditOptions } from '../src/types.js'

export const JWT_SECRET = 'audit-test-secret-0123456789abcdef'

/**
 * `notes` (soft delete + audit, `secret` readable only by `admin`), `logs` (hard delete),
 * `drafts` (audit off), `tickets` (a state machine).
 */
export const SCHEMAS = [
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'body', type: String, required: true },
      { name: 'pinned', type: Boolean, default: false },
      { name: 'secret', type: String, acl: { read: ['admin'] } }
    ],
    acl: { delete: ['moderator'] }
  },
  { path: 'logs', collection: 'logs', softDelete: false, fields: [{ name: 'line', type: String, required: true }] },
  { path: 'drafts', collection: 'drafts', audit: false, fields: [{ name: 'text', type: String }] },
  {
    path: 'tickets',
    collection: 'tickets',
    fields: [
      { name: 'title', type: String, required: true },
      {
        name: 'status',
        type: String,
        stateMachine: {
          initial: 'open',
          states: ['open', 'closed'],
          transitions: { open: ['closed'], closed: ['open'] }
        }
      }
    ]
  }
]

export interface BuildOptions {
  schemas?: unknown[]
  audit?: AuditOptions | false
  softDelete?: boolean
  /** More @svc/core options (e.g. `intentLeaseMs`). */
  core?: Record<string, unknown>
  /** Runs on the fresh database before the app is built. */
  before?: (db: Db) => Promise<void>
}

/** core (+ @svc/softdelete) + @svc/audit on a fresh database; closed in teardown. */
export async function buildApp (t: Teardownable, opts: BuildOptions = {}): Promise<{ app: FastifyInstance; db: Db }> {
  const { db } = await getTestDb(t)
  await opts.before?.(db)
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: opts.schemas ?? SCHEMAS,
    ...opts.core
  })
  if (opts.softDelete !== false) await app.register(softDelete, { sweepIntervalMs: 0 })
  if (opts.audit !== false) await app.register(audit, { ...opts.audit })
  t.teardown(async () => await app.close())
  await app.ready()
  return { app, db }
}

export interface TestUser {
  userId: string
  email: string
  headers: { authorization: string }
}

export function makeUser (claims: Record<string, unknown> = {}): TestUser {
  const userId = typeof claims.user_id === 'string' ? claims.user_id : new ObjectId().toHexString()
  const email = `u-${randomBytes(3).toString('hex')}@example.test`
  const token = signToken({ user_id: userId, email, roles: ['user'], ...claims }, JWT_SECRET)
  return { userId, email, headers: { authorization: `Bearer ${token}` } }
}
