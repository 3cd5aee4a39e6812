import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { ObjectId, type Db } from 'mongodb'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import svcCore, { type SvcCoreOptions } from '@svc/core'
import svcAudit from '@svc/audit'
import svcSoftDelete from '@svc/softdelete'
import { crmSchemas, getTestDb, signToken, type Teardownable } from '@svc/testkit'
import svcMcp from '../src/index.js'
import type { McpOptions } from '../src/types.js'

export const JWT_SECRET = 'mcp-test-secret-0123456789abcdef'

export interface BuildOptions {
  schemas?: unknown[]
  core?: Partial<SvcCoreOptions>
  softDelete?: boolean
  audit?: boolean
  mcp?: McpOptions
  /** Registered after core and the feature plugins, before ready. */
  before?: (app: FastifyInstance) => void | Promise<void>
  /** Registered before core (infrastructure such as @svc/surface's hooks). */
  first?: (app: FastifyInstance) => Promise<void>
}

export interface TestApp {
  app: FastifyInstance
  db: Db
  url: string
}

/** core (+ soft delete, audit) + @svc/mcp on a fresh database, listening on an ephemeral port. */
export async function buildApp (t: Teardownable, opts: BuildOptions = {}): Promise<TestApp> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await opts.first?.(app)
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: opts.schemas ?? crmSchemas(),
    ...opts.core
  })
  // MCP first, on purpose: its tools are built on ready, after every feature plugin registered.
  await app.register(svcMcp, opts.mcp ?? {})
  if (opts.softDelete !== false) await app.register(svcSoftDelete, { sweepIntervalMs: 0 })
  if (opts.audit !== false) await app.register(svcAudit)
  await opts.before?.(app)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, db, url: `http://127.0.0.1:${port}${opts.mcp?.path ?? '/mcp'}` }
}

export interface TestUser {
  userId: string
  token: string
  headers: Record<string, string>
}

export function makeUser (claims: Record<string, unknown> = {}): TestUser {
  const userId = typeof claims.user_id === 'string' ? claims.user_id : new ObjectId().toHexString()
  const token = signToken(
    { user_id: userId, email: `u-${randomBytes(3).toString('hex')}@example.test`, roles: ['user'], ...claims },
    JWT_SECRET
  )
  return { userId, token, headers: { authorization: `Bearer ${token}` } }
}

/** The SDK's own client over the real Streamable HTTP transport, closed in teardown. */
export async function connect (t: Teardownable, url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'svc-mcp-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  t.teardown(async () => await client.close())
  return client
}

/** Calls a tool that must succeed; the SDK client has already checked the answer against its outputSchema. */
export async function ok (client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (res.isError === true) throw new Error(`${name} failed: ${(res.content[0] as { text: string }).text}`)
  return res.structuredContent
}

/** Calls a tool that must fail; returns the error envelope's `error`. */
export async function fails (
  client: Client,
  name: string,
  args: Record<string, unknown> = {}
): Promise<{ code: string; message: string; details?: any }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (res.isError !== true) throw new Error(`${name} succeeded: ${JSON.stringify(res.structuredContent)}`)
  if (res.structuredContent !== undefined) throw new Error(`${name}: an error result must not carry structuredContent`)
  return (JSON.parse((res.content[0] as { text: string }).text) as { error: any }).error
}

/** Tool names a client sees. */
export async function toolNames (client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort()
}
