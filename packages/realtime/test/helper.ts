import type { Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import { getTestDb, tokenUser, type TokenUser } from '@svc/testkit'
import realtime from '../src/index.js'
import type { RealtimeOptions } from '../src/types.js'
import { openSse, type SseConnection } from './sse-client.js'

export const JWT_SECRET = 'realtime-test-secret-0123456789abcdef'

/**
 * `contacts`: soft delete, `salary` readable by `hr` only, a state machine, `acl.list` for
 * `admin`, a public scope for the `storefront` role. `logs`: hard delete.
 */
export function schemas (): unknown[] {
  return [
    {
      path: 'contacts',
      fields: [
        { name: 'name', type: String, required: true },
        { name: 'salary', type: Number, acl: { read: ['hr'] } },
        { name: 'published', type: Boolean, default: false },
        {
          name: 'stage',
          type: String,
          stateMachine: {
            initial: 'lead',
            states: ['lead', 'won', 'lost'],
            transitions: { lead: ['won', 'lost'], lost: ['lead'] }
          }
        }
      ],
      acl: { list: ['admin'], scope: { storefront: { published: true } } }
    },
    { path: 'logs', softDelete: false, fields: [{ name: 'line', type: String }] }
  ]
}

export interface BuildOptions {
  db?: Db
  schemas?: unknown[]
  realtime?: RealtimeOptions
  core?: Record<string, unknown>
}

export interface Built {
  app: FastifyInstance
  db: Db
  url: string
}

/** core + softdelete + realtime on a fresh database (or `db`, to share one event log), listening on a free port. */
export async function buildApp (t: Test, opts: BuildOptions = {}): Promise<Built> {
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
  await app.register(realtime, opts.realtime ?? {})
  t.teardown(async () => await app.close())
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, db, url }
}

export function makeUser (claims: Record<string, unknown> = {}): TokenUser {
  return tokenUser(JWT_SECRET, claims)
}

/** Opens `GET /api/v1/_events` with `query` and closes it in teardown. */
export async function stream (t: Test, b: Built, headers: Record<string, string>, query = ''): Promise<SseConnection> {
  const conn = await openSse(`${b.url}/api/v1/_events${query === '' ? '' : `?${query}`}`, headers)
  t.teardown(() => {
    conn.close()
  })
  return conn
}

/** A request through inject that must succeed; answers its JSON. */
export async function call (
  app: FastifyInstance,
  method: string,
  url: string,
  headers: Record<string, string>,
  payload?: unknown
): Promise<any> {
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {})
  })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

export const sleep = async (ms: number): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, ms))
}
