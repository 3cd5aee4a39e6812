import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import cookie from '@fastify/cookie'
import { LRUCache } from 'lru-cache'
import { AccessTokens } from './auth/access-tokens.js'
import type { CookieSettings, Identities } from './auth/identity.js'
import { DEFAULT_LINK_TTL_SECONDS, perUserMode, type PerUserAuthOptions } from './auth/per-user-mode.js'
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
import { ServiceRecords } from './service/records.js'
import { missingSchemas, missingSchemaWarnings } from './service/schema-check.js'
import { MemoryStore } from './store/memory-store.js'
import type { AgentStore } from './store/types.js'
import { DEFAULT_MAX_RESULT_CHARS } from './tools/bound.js'
import { McpTools, type HeaderSource } from './tools/mcp-tools.js'
import { checkServiceWriteTools, type ToolPolicy } from './tools/policy.js'

export interface RateLimits {
  /** Chat messages per minute per address. Default 120. */
  chatPerMinute?: number
  /** Chat messages per minute per chat user (a valid session). Default 30. */
  chatPerMinutePerUser?: number
  /** Sign-in attempts on link pages per minute per address. Default 10. */
  signInsPerMinute?: number
}

export interface AgentOptions {
  /** The service's base URL; MCP at `<svcUrl>/mcp`, conversations under `<svcUrl>/api/v1`. */
  svcUrl: string
  model: Model
  auth: ServiceAuthOptions | PerUserAuthOptions
  /** Links, link codes and rate-limit counters (`openStore`). Required in per-user mode; default an in-process store. */
  store?: AgentStore
  /** Public URL of the agent (AGENT_LINK_BASE_URL): link URLs start with it and browser requests must come from its origin. Unset: the request's own origin, for localhost and addresses. */
  publicUrl?: string
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
  limits?: RateLimits
}

export const DEFAULT_MAX_TOOL_ROUNDS = 8

/**
 * The agent's HTTP surface: `POST /chat` (SSE or JSON). Encapsulated (not fastify-plugin): its
 * cookie parsing, body parsers and error envelope stay inside its own routes.
 */
export async function svcAgent (app: FastifyInstance, opts: AgentOptions): Promise<void> {
  if (opts.auth.mode === 'per-user' && (opts.sessionSecret ?? '').length < 32) {
    throw new Error('@svc/agent: per-user mode needs a sessionSecret (AGENT_SESSION_SECRET) of at least 32 characters')
  }
  if (opts.auth.mode === 'per-user' && opts.store == null) {
    throw new Error('@svc/agent: per-user mode needs a store (STORE_URL) for the linked accounts')
  }
  if (opts.publicUrl != null) new URL(opts.publicUrl) // eslint-disable-line no-new
  checkServiceWriteTools(opts.serviceWriteTools ?? [])
  const agentKey = opts.agentKey ?? 'default'
  const store = opts.store ?? new MemoryStore()
  // One cookie key per agent instance, so a session of one tenant's agent is refused by another's.
  const secret = sessionKey(opts.sessionSecret ?? randomBytes(32).toString('hex'), agentKey)
  await app.register(cookie)
  installErrorHandler(app)
  const cookieSettings: CookieSettings = {
    secret,
    secure: opts.cookieSecure ?? true,
    serialize: app.serializeCookie.bind(app)
  }
  const fallbackOrigin = (): string => {
    try {
      return app.listeningOrigin
    } catch {
      return 'http://localhost'
    }
  }
  const limits = opts.limits ?? {}
  const limiter = (name: string, points: number): ReturnType<AgentStore['limiter']> =>
    store.limiter(`${agentKey}:${name}`, points, 60)
  let identities: Identities
  if (opts.auth.mode === 'per-user') {
    const auth = new SvcAuth(opts.svcUrl)
    const tokens = new AccessTokens(store, auth, opts.auth.accessTtlSeconds, opts.auth.refreshSkewSeconds)
    const linkTtlSeconds = opts.auth.linkTtlSeconds ?? DEFAULT_LINK_TTL_SECONDS
    identities = perUserMode({ agentKey, store, tokens, linkTtlSeconds })
    await linkRoutes(app, {
      agentKey,
      store,
      tokens,
      auth,
      cookie: cookieSettings,
      publicUrl: opts.publicUrl,
      linkTtlSeconds,
      signIns: limiter('sign-in', limits.signInsPerMinute ?? 10)
    })
  } else {
    identities = serviceMode(opts.auth)
  }
  oauthCallbackRoute(app)
  if (opts.chatPage !== false) await pageRoutes(app)
  const policy: ToolPolicy = { mode: identities.mode, serviceWriteTools: new Set(opts.serviceWriteTools ?? []) }
  const mcpUrl = `${opts.svcUrl.replace(/\/+$/, '')}/mcp`
  const maxResultChars = opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS
  const clients = new LRUCache<string, Toolbox>({
    max: opts.maxClients ?? 1000,
    dispose: (box) => {
      void box.close()
    }
  })
  const toolbox = (key: string, headers: HeaderSource): Toolbox => {
    let box = clients.get(key)
    if (box == null) {
      box = new Toolbox(new McpTools(mcpUrl, headers), maxResultChars, policy)
      clients.set(key, box)
    }
    return box
  }
  app.addHook('onClose', async () => {
    clients.clear()
    if (opts.store == null) await store.close()
  })
  const records = new ServiceRecords(opts.svcUrl)
  const turns = new ConversationTurns({
    model: opts.model,
    toolbox,
    conversations: new Conversations(records),
    maxToolRounds: opts.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
    systemPrompt: opts.systemPrompt,
    ...(opts.learning === true ? { learning: { recall: new Recall(records), records } } : {})
  })
  chatRoute(app, {
    identities,
    turns,
    cookie: cookieSettings,
    publicUrl: opts.publicUrl,
    fallbackOrigin,
    perAddress: limiter('chat-address', limits.chatPerMinute ?? 120),
    perUser: limiter('chat-user', limits.chatPerMinutePerUser ?? 30)
  })
  // Said once at start (not awaited: the service may come up after the agent).
  app.addHook('onReady', async () => {
    void missingSchemas(opts.svcUrl, opts.learning === true).then((missing) => {
      for (const warning of missingSchemaWarnings(missing ?? [])) app.log.warn(warning)
    })
  })
  if (opts.slack != null) {
    await app.register(slackChannel, {
      ...opts.slack,
      identities,
      turns,
      linkBase: () => opts.publicUrl ?? fallbackOrigin()
    })
  }
}
