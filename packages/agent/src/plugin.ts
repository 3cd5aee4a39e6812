import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import { LRUCache } from 'lru-cache'
import type { IdentityResolver } from './auth/identity.js'
import { serviceMode, type ServiceAuthOptions } from './auth/service-mode.js'
import { Conversations } from './conversations.js'
import { chatRoute } from './http/chat-route.js'
import { installErrorHandler } from './http/errors.js'
import type { Model } from './model/types.js'
import { Toolbox } from './runtime/toolbox.js'
import { DEFAULT_MAX_RESULT_CHARS } from './tools/bound.js'
import { McpTools, type HeaderSource } from './tools/mcp-tools.js'

export interface AgentOptions {
  /** The service's base URL; MCP at `<svcUrl>/mcp`, conversations under `<svcUrl>/api/v1`. */
  svcUrl: string
  model: Model
  auth: ServiceAuthOptions
  /** HMAC key of the session cookie. Service mode: random per process when unset (sessions end with it). */
  sessionSecret?: string
  /** `Secure` attribute of the session cookie. Default true. */
  cookieSecure?: boolean
  /** Tool-call rounds per turn. Default 8. */
  maxToolRounds?: number
  /** A tool result is cut to this many characters of JSON before the model reads it. Default 16000. */
  maxResultChars?: number
  systemPrompt?: string
  /** Identities whose MCP client stays connected. Default 1000. */
  maxClients?: number
}

export const DEFAULT_MAX_TOOL_ROUNDS = 8

/**
 * The agent's HTTP surface: `POST /chat` (SSE or JSON). Encapsulated (not fastify-plugin): its
 * cookie parsing, body parsers and error envelope stay inside its own routes.
 */
export async function svcAgent (app: FastifyInstance, opts: AgentOptions): Promise<void> {
  const secret = opts.sessionSecret ?? randomBytes(32).toString('hex')
  await app.register(cookie)
  await app.register(formbody)
  installErrorHandler(app)
  const cookieSettings = { secret, secure: opts.cookieSecure ?? true, serialize: app.serializeCookie.bind(app) }
  const identity: IdentityResolver = serviceMode(opts.auth, cookieSettings)
  const mcpUrl = `${opts.svcUrl.replace(/\/+$/, '')}/mcp`
  const maxResultChars = opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS
  const clients = new LRUCache<string, Toolbox>({
    max: opts.maxClients ?? 1000,
    dispose: (box) => { void box.close() }
  })
  const toolbox = (key: string, headers: HeaderSource): Toolbox => {
    let box = clients.get(key)
    if (box == null) {
      box = new Toolbox(new McpTools(mcpUrl, headers), maxResultChars)
      clients.set(key, box)
    }
    return box
  }
  app.addHook('onClose', async () => { clients.clear() })
  chatRoute(app, {
    model: opts.model,
    identity,
    toolbox,
    conversations: new Conversations(opts.svcUrl),
    maxToolRounds: opts.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
    systemPrompt: opts.systemPrompt
  })
}
