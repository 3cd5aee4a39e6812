import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore, { type SvcCoreOptions } from '@svc/core'
import svcAudit from '@svc/audit'
import svcSoftDelete from '@svc/softdelete'
import { crmSchemas, getTestDb, tokenUser, type Teardownable, type TokenUser } from '@svc/testkit'
import svcGraphql from '../src/index.js'
import type { GraphqlOptions } from '../src/types.js'

export const JWT_SECRET = 'graphql-test-secret-0123456789abcdef'

export interface BuildOptions {
  schemas?: unknown[]
  core?: Partial<SvcCoreOptions>
  softDelete?: boolean
  audit?: boolean
  graphql?: GraphqlOptions
  /** A database the test opened itself (e.g. on a client with command monitoring). */
  db?: Db
  /** Registered before core (infrastructure such as @svc/surface's hooks). */
  first?: (app: FastifyInstance) => Promise<void>
}

export interface TestApp {
  app: FastifyInstance
  db: Db
}

/** core (+ soft delete, audit) + @svc/graphql, registered last as its README says, on a fresh database. */
export async function buildApp (t: Teardownable, opts: BuildOptions = {}): Promise<TestApp> {
  const db = opts.db ?? (await getTestDb(t)).db
  const app = Fastify({ logger: false })
  await opts.first?.(app)
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: opts.schemas ?? crmSchemas(),
    ...opts.core
  })
  if (opts.softDelete !== false) await app.register(svcSoftDelete, { sweepIntervalMs: 0 })
  if (opts.audit !== false) await app.register(svcAudit)
  await app.register(svcGraphql, opts.graphql ?? {})
  t.teardown(async () => await app.close())
  await app.ready()
  return { app, db }
}

export function makeUser (claims: Record<string, unknown> = {}): TokenUser {
  return tokenUser(JWT_SECRET, claims)
}

export interface GqlAnswer {
  status: number
  data: any
  errors?: Array<{ message: string; path?: string[]; extensions: { code: string; details?: any } }>
  raw: string
}

/** POST /graphql with the given headers; the parsed answer and its status. */
export async function gql (
  app: FastifyInstance,
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>
): Promise<GqlAnswer> {
  const res = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers,
    payload: { query, ...(variables !== undefined ? { variables } : {}) }
  })
  const body = res.json()
  return { status: res.statusCode, data: body.data, errors: body.errors, raw: res.body }
}

/** A query that must succeed: its `data`. */
export async function ok (
  app: FastifyInstance,
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>
): Promise<any> {
  const res = await gql(app, headers, query, variables)
  if (res.errors !== undefined) throw new Error(`query failed (${res.status}): ${JSON.stringify(res.errors)}`)
  return res.data
}

/** A query that must fail: its first error, with the HTTP status. */
export async function fails (
  app: FastifyInstance,
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>
): Promise<{ status: number; code: string; message: string; details?: any; data: any }> {
  const res = await gql(app, headers, query, variables)
  if (res.errors === undefined || res.errors.length === 0) {
    throw new Error(`query succeeded: ${JSON.stringify(res.data)}`)
  }
  const e = res.errors[0]
  return {
    status: res.status,
    code: e.extensions?.code,
    message: e.message,
    details: e.extensions?.details,
    data: res.data
  }
}

/** Creates a record over REST (the reference surface) and returns it. */
export async function restCreate (
  app: FastifyInstance,
  user: TokenUser,
  path: string,
  body: Record<string, unknown>
): Promise<any> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: user.headers, payload: body })
  if (res.statusCode !== 201) throw new Error(`POST /api/v1/${path} → ${res.statusCode} ${res.body}`)
  return res.json()
}
