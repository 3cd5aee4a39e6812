import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import { LRUCache } from 'lru-cache'
import { AccessTokens } from './auth/access-tokens.js'
import type { CookieSettings, Identities } from './auth/identity.js'
import { Nonces } from './auth/nonces.js'
import { perUserMode, type PerUserAuthOptions } from './auth/per-user-mode.js'
import { serviceMode, type ServiceAuthOptions } from './auth/service-mode.js'
import { SvcAuth } from './auth/svc-auth.js'
import { sessionKey } from './auth/session-cookie.js'
import { Conversations } from './conversations.js'
import { Recall } from './recall.js'
import { chatRoute } from './http/chat-route.js'
import { installErrorHandler } from './http/errors.js'
import { linkRoutes, oauthCallbackRoute } from './http/link-routes.js'
import { pageRoutes } from './http/page-routes.js'
import type { Model } from './model/types.js'
import { ConversationTurns } from './runtime/conversation-turns.js'
import { Toolbox } from './runtime/toolbox.js'
import { slackChannel, type SlackOptions } from './channels/slack.js'
import { DEFAULT_MAX_RESULT_CHARS } from './tools/bound.js'
import { McpTools, type HeaderSource } from './tools/mcp-tools.js'
import { checkServiceWriteTools, type ToolPolicy } from './tools/policy.js'
import { ServiceRecords } from './service/records.js'

export interface AgentOptions {
  /** The service's base URL; MCP at `<svcUrl>/mcp`, conversations under `<svcUrl>/api/v1`. */
  svcUrl: string
  model: Model
  auth: ServiceAuthOptions | PerUserAuthOptions
  /** HMAC key of the session cookie. Required in per-user mode; service mode: random per process when unset (sessions end with it). */
  sessionSecret?: string
  /** Names this agent instance: store rows and session cookies of one key are not valid under another. Default `default`. */
  agentKey?: string
  /** `Secure` attribute of the session cookie. Default true. */
  cookieSecure?: boolean
  /** Tool-call rounds per turn. Default 8. */
  maxToolRounds?: number
  /** A tool result is cut to this many characters of JSON before the model reads it. Default 16000. */
  maxResultChars?: number
  systemPrompt?: string
  /** Identities whose MCP client stays connected. Default 1000. */
  maxClients?: number
  /** Serve the chat page at `GET /`. Default true. */
  chatPage?: boolean
  /** The Slack channel (`POST /slack/events`), when given. */
  slack?: SlackOptions
  /** The learning layer: recall persona, approved skills and the chat user's memories and profile; learning tools for role `agent`. Default false. */
  learning?: boolean
  /** Service mode: write tools (by name) the model may call besides the read tools. Default none. */
  serviceWriteTools?: string[]
}

export const DEFAULT_MAX_TOOL_ROUNDS = 8

/**
 * The agent's HTTP surface: `POST /chat` (SSE or JSON). Encapsulated (not fastify-plugin): its
 * cookie parsing, body parsers and error envelope stay inside its own routes.
 */
export async function svcAgent (app: FastifyInstance, opts: AgentOptions): Promise<void> {
  if (opts.auth.mode === 'per-user' && (opts.sessionSecret ?? '').length < 32) throw new Error('@svc/agent: per-user mode needs a sessionSecret (AGENT_SESSION_SECRET) of at least 32 characters')
  const agentKey = opts.agentKey ?? 'default'
  // One cookie key per agent instance, so a session of one tenant's agent is refused by another's.
  const secret = sessionKey(opts.sessionSecret ?? randomBytes(32).toString('hex'), agentKey)
  await app.register(cookie)
  await app.register(formbody)
  installErrorHandler(app)
  const cookieSettings: CookieSettings = { secret, secure: opts.cookieSecure ?? true, serialize: app.serializeCookie.bind(app) }
  let identities: Identities
  if (opts.auth.mode === 'per-user') {
    const auth = new SvcAuth(opts.svcUrl)
    const tokens = new AccessTokens(opts.auth.store, auth, opts.auth.accessTtlSeconds, opts.auth.refreshSkewSeconds)
    const nonces = new Nonces(opts.auth.linkTtlSeconds)
    identities = perUserMode({ agentKey, store: opts.auth.store, tokens, nonces, linkBaseUrl: opts.auth.linkBaseUrl })
    linkRoutes(app, { agentKey, nonces, store: opts.auth.store, tokens, auth, cookie: cookieSettings })
  } else {
    identities = serviceMode(opts.auth)
  }
  oauthCallbackRoute(app)
  if (opts.chatPage !== false) await pageRoutes(app)
  checkServiceWriteTools(opts.serviceWriteTools ?? [])
  const policy: ToolPolicy = { mode: identities.mode, serviceWriteTools: new Set(opts.serviceWriteTools ?? []) }
  const mcpUrl = `${opts.svcUrl.replace(/\/+$/, '')}/mcp`
  const maxResultChars = opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS
  const clients = new LRUCache<string, Toolbox>({
    max: opts.maxClients ?? 1000,
    dispose: (box) => { void box.close() }
  })
  const toolbox = (key: string, headers: HeaderSource): Toolbox => {
    let box = clients.get(key)
    if (box == null) {
      box = new Toolbox(new McpTools(mcpUrl, headers), maxResultChars, policy)
      clients.set(key, box)
    }
    return box
  }
  app.addHook('onClose', async () => { clients.clear() })
  const records = new ServiceRecords(opts.svcUrl)
  const turns = new ConversationTurns({
    model: opts.model,
    toolbox,
    conversations: new Conversations(records),
    maxToolRounds: opts.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
    systemPrompt: opts.systemPrompt,
    ...(opts.learning === true ? { learning: { recall: new Recall(records), records } } : {})
  })
  chatRoute(app, { identities, turns, cookie: cookieSettings })
  if (opts.slack != null) await app.register(slackChannel, { ...opts.slack, identities, turns })
}
