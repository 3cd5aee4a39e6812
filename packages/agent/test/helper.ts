import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import svcMcp from '@svc/mcp'
import { getTestDb, type Teardownable } from '@svc/testkit'
import { svcAgent, type AgentOptions } from '../src/index.js'
import { agentConversationsSchema } from '../src/schemas/index.js'
import { createModel } from '../src/model/index.js'
import type { ScriptedModel } from '../src/testing/index.js'

export const JWT_SECRET = 'agent-test-secret-0123456789abcdef'

export const contactsSchema = {
  path: 'contacts',
  fields: [
    { name: 'name', type: String, required: true },
    { name: 'status', type: String, enum: ['lead', 'customer'], default: 'lead' },
    { name: 'note', type: String }
  ]
}

export interface Service {
  app: FastifyInstance
  db: Db
  url: string
}

/** A live svc (core + MCP + the agent's conversation schema) listening on an ephemeral port. */
export async function startService (t: Teardownable, opts: { schemas?: unknown[] } = {}): Promise<Service> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: (opts.schemas ?? [contactsSchema, agentConversationsSchema]) as any
  })
  await app.register(svcMcp)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, db, url: `http://127.0.0.1:${port}` }
}

/** The agent's routes on their own Fastify instance, driven with inject(). */
export async function startAgent (
  t: Teardownable,
  model: ScriptedModel,
  opts: Omit<AgentOptions, 'model'> & { provider?: 'openai' | 'anthropic' }
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  const { provider, ...rest } = opts
  await app.register(svcAgent, {
    sessionSecret: 'agent-session-secret-0123456789',
    cookieSecure: false,
    ...rest,
    model: createModel({
      provider: provider ?? 'openai',
      url: model.url,
      model: 'scripted',
      retries: 0,
      timeoutMs: 2000
    })
  })
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}

export interface SseEvent {
  event: string
  data: any
}

/** Parses a complete `text/event-stream` body. */
export function parseSse (body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n')
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? ''
      const data = JSON.parse(
        lines
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n')
      )
      return { event, data }
    })
}

/** Event types in order, with runs of tokens folded into one. */
export function sequence (events: SseEvent[]): string[] {
  const out: string[] = []
  for (const e of events) if (!(e.event === 'token' && out.at(-1) === 'token')) out.push(e.event)
  return out
}

export async function createRecord (
  svc: Service,
  headers: Record<string, string>,
  path: string,
  record: Record<string, unknown>
): Promise<any> {
  const res = await svc.app.inject({ method: 'POST', url: `/api/v1/${path}`, headers, payload: record })
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`create ${path}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** `name=value` of the first Set-Cookie of a reply. */
export function cookieOf (res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie']
  const first = Array.isArray(raw) ? raw[0] : (raw as string)
  return first.split(';')[0]
}

/** The channel user id inside a session cookie (`svc_agent_session=<payload>.<mac>`). */
export function cuidOf (cookie: string): string {
  return JSON.parse(Buffer.from(cookie.split('=')[1].split('.')[0], 'base64url').toString()).cuid
}
