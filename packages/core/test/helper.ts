import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { Server } from 'node:http'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import { ObjectId, type Db } from 'mongodb'
import { getTestDb, signToken, type Teardownable } from '@svc/testkit'
export { DURABLE_MODES } from '@svc/testkit'
import svcCore from '../src/index.js'
import type { SvcCoreOptions } from '../src/types.js'

/** The HS256 secret every core test app uses, so tests can mint tokens with testkit's signToken. */
export const JWT_SECRET = 'core-test-secret-0123456789abcdef'
/** The repository's example CRM schemas (schema/versions/v1). */
export const EXAMPLE_SCHEMA_DIR = fileURLToPath(new URL('../../../schema', import.meta.url))

export interface BuildCoreAppOptions {
  /** In-memory schema definitions; when neither this nor schemaDir is given, the example CRM schemas load. */
  schemas?: unknown[]
  schemaDir?: string
  options?: Partial<SvcCoreOptions>
  fastify?: FastifyHttpOptions<Server>
  /** Registered after core, before `ready()` (routes of a host or another plugin). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>
  /** A database of the caller's (e.g. on a standalone server); default a fresh one from testkit. */
  db?: Db
}

/** A ready Fastify app with @svc/core on a fresh database; closed in teardown (then the db is dropped). */
export async function buildCoreApp (t: Teardownable, opts: BuildCoreAppOptions = {}): Promise<FastifyInstance> {
  const db = opts.db ?? (await getTestDb(t)).db
  const app = Fastify({ logger: false, ...opts.fastify })
  const schemaDir = opts.schemaDir ?? (opts.schemas === undefined ? EXAMPLE_SCHEMA_DIR : undefined)
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemaDir,
    schemas: opts.schemas,
    ...opts.options
  })
  for (const plugin of opts.plugins ?? []) await app.register(plugin)
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}

export interface TestUser {
  userId: string
  headers: { authorization: string }
}

/** A made-up tenant with a signed access token (no /register round trip). */
export function makeUser (claims: Record<string, unknown> = {}): TestUser {
  const userId = typeof claims.user_id === 'string' ? claims.user_id : new ObjectId().toHexString()
  const token = signToken(
    { user_id: userId, email: `u-${randomBytes(3).toString('hex')}@example.test`, roles: ['user'], ...claims },
    JWT_SECRET
  )
  return { userId, headers: { authorization: `Bearer ${token}` } }
}
