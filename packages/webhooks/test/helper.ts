import type { Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import { getTestDb, tokenUser, type TokenUser } from '@svc/testkit'
export { DURABLE_MODES } from '@svc/testkit'
import webhooks from '../src/index.js'
import type { WebhooksOptions } from '../src/types.js'

export const JWT_SECRET = 'webhooks-test-secret-0123456789abcdef'

/** `contacts` (soft delete, `salary` readable by `hr` only, a state machine) and `logs` (hard delete). */
export function schemas (extra: Record<string, unknown> = {}): unknown[] {
  return [
    {
      path: 'contacts',
      fields: [
        { name: 'name', type: String, required: true },
        { name: 'salary', type: Number, acl: { read: ['hr'] } },
        {
          name: 'stage',
          type: String,
          stateMachine: { initial: 'lead', states: ['lead', 'won', 'lost'], transitions: { lead: ['won', 'lost'] } }
        }
      ],
      ...extra
    },
    { path: 'logs', softDelete: false, fields: [{ name: 'line', type: String }] }
  ]
}

export interface BuildOptions {
  db?: Db
  schemas?: unknown[]
  webhooks?: WebhooksOptions
  /** More @svc/core options (e.g. the write-intent lease and reconcile period). */
  core?: Record<string, unknown>
}

/** core + softdelete + webhooks on a fresh database (or `db`, to share one event log). Fast retries, fast polling. */
export async function buildApp (t: Test, opts: BuildOptions = {}): Promise<{ app: FastifyInstance; db: Db }> {
  const db = opts.db ?? (await getTestDb(t)).db
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: opts.schemas ?? schemas(),
    eventLog: { pollMs: 20, leaseMs: 1500 },
    ...opts.core
  })
  await app.register(softDelete, { sweepIntervalMs: 0 })
  await app.register(webhooks, {
    allowPrivateUrls: true,
    retrySchedule: [0.05, 0.05, 0.05, 0.05, 0.05],
    pollIntervalMs: 20,
    leaseMs: 20_000,
    ...opts.webhooks
  })
  t.teardown(async () => await app.close())
  await app.ready()
  return { app, db }
}

export function makeUser (claims: Record<string, unknown> = {}): TokenUser {
  return tokenUser(JWT_SECRET, claims)
}

/** Subscribes `user` and answers the created subscription (with its secret). */
export async function subscribe (
  app: FastifyInstance,
  user: TokenUser,
  url: string,
  events: string[] = ['*']
): Promise<{ _id: string; secret: string; [k: string]: unknown }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: user.headers,
    payload: { events, url }
  })
  if (res.statusCode !== 201) throw new Error(`subscribe: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** Polls until `check` holds (deliveries are asynchronous). */
export async function eventually<T> (
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== undefined && v !== null && v !== false) return v
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
