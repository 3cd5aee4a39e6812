import { isIP } from 'node:net'
import { isStoreUrl, type Provider } from '@svc/agent'

/** The agent process's settings, read from the environment per CONTRACT.md "The agent process". */
export interface AgentConfig {
  port: number
  host: string
  svcUrl: string
  authMode: 'service' | 'per-user'
  svcBearer?: string
  svcClientId?: string
  sessionSecret?: string
  cookieSecure: boolean
  agentKey: string
  /** Public URL of the agent; unset: the origin each request came to (localhost and addresses). */
  linkBaseUrl?: string
  /** Per-user mode: where links live (default file). Service mode: only when set (shared rate limits). */
  storeUrl: string
  storeUrlSet: boolean
  /** Fastify's `trustProxy`: which X-Forwarded-For hops name the person's address. */
  trustProxy: false | number | string[]
  limits: { chatPerMinute: number; chatPerMinutePerUser: number; signInsPerMinute: number }
  accessTtlSeconds: number
  refreshSkewSeconds: number
  linkTtlSeconds: number
  llm: { provider: Provider; url?: string; apiKey?: string; model: string }
  maxToolRounds: number
  maxResultChars: number
  /** Recall persona and memories (the learning layer) into each turn. */
  learning: boolean
  /** Service mode: write tools the model may call besides the read tools. */
  serviceWriteTools: string[]
  /** The Slack channel, when SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN are set. */
  slack?: { signingSecret: string; botToken: string; apiUrl?: string }
}

export interface ConfigResult {
  config: AgentConfig | null
  /** One line per problem, each naming its variable. */
  problems: string[]
  warnings: string[]
}

type Env = Record<string, string | undefined>

function read (env: Env, name: string): string | undefined {
  const v = env[name]
  return v === undefined || v.trim() === '' ? undefined : v.trim()
}

function int (env: Env, name: string, fallback: number, min: number, problems: string[]): number {
  const raw = read(env, name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min) problems.push(`${name} must be an integer ≥ ${min} (got '${raw}')`)
  return n
}

function url (env: Env, name: string, fallback: string | undefined, problems: string[]): string | undefined {
  const raw = read(env, name) ?? fallback
  if (raw === undefined) return undefined
  try {
    const u = new URL(raw)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
  } catch {
    problems.push(`${name} must be an http(s) URL (got '${raw}')`)
  }
  return raw
}

/** Validates the whole environment and reports every problem at once. Never throws. */
export function loadConfig (env: Env = process.env): ConfigResult {
  const problems: string[] = []
  const warnings: string[] = []
  const port = int(env, 'PORT', 3100, 0, problems)
  const host = read(env, 'HOST') ?? '127.0.0.1'
  const svcUrl = url(env, 'SVC_URL', 'http://127.0.0.1:3000', problems) as string
  const mode = read(env, 'AGENT_AUTH_MODE') ?? 'service'
  if (mode !== 'service' && mode !== 'per-user') {
    problems.push(`AGENT_AUTH_MODE must be 'service' or 'per-user' (got '${mode}')`)
  }
  const svcBearer = read(env, 'SVC_BEARER')
  const svcClientId = read(env, 'SVC_CLIENT_ID')
  if (mode === 'service' && svcBearer === undefined && svcClientId === undefined) {
    problems.push("service mode needs SVC_BEARER (a JWT of the agent's user) or SVC_CLIENT_ID")
  }
  const sessionSecret = read(env, 'AGENT_SESSION_SECRET')
  if (sessionSecret === undefined) {
    if (mode === 'per-user') problems.push('AGENT_SESSION_SECRET is required in per-user mode (at least 32 characters)')
    else {
      warnings.push(
        'AGENT_SESSION_SECRET is unset: a random per-process key signs session cookies, so conversations restart with the process'
      )
    }
  } else if (sessionSecret.length < 32) problems.push('AGENT_SESSION_SECRET must be at least 32 characters')
  const linkBaseUrl = url(env, 'AGENT_LINK_BASE_URL', undefined, problems)
  const storeUrl = read(env, 'STORE_URL') ?? 'file:./svc-agent-store.json'
  if (!isStoreUrl(storeUrl)) {
    problems.push(
      `STORE_URL must be file:<path>, redis://… or memory: (got '${storeUrl.replace(/\/\/[^@/]*@/, '//***@')}')`
    )
  }
  const trustProxy = readTrustProxy(read(env, 'AGENT_TRUST_PROXY'), problems)
  const limits = {
    chatPerMinute: int(env, 'AGENT_CHAT_PER_MINUTE', 120, 1, problems),
    chatPerMinutePerUser: int(env, 'AGENT_CHAT_PER_MINUTE_PER_USER', 30, 1, problems),
    signInsPerMinute: int(env, 'AGENT_SIGN_INS_PER_MINUTE', 10, 1, problems)
  }
  const accessTtlSeconds = int(env, 'AGENT_ACCESS_TTL_SECONDS', 900, 1, problems)
  const refreshSkewSeconds = int(env, 'AGENT_REFRESH_SKEW_SECONDS', 60, 0, problems)
  if (refreshSkewSeconds >= accessTtlSeconds) {
    problems.push('AGENT_REFRESH_SKEW_SECONDS must be less than AGENT_ACCESS_TTL_SECONDS')
  }
  const linkTtlSeconds = int(env, 'AGENT_LINK_TTL_SECONDS', 900, 1, problems)
  const agentKey = read(env, 'AGENT_KEY') ?? 'default'
  const secure = read(env, 'AGENT_COOKIE_SECURE') ?? 'true'
  if (secure !== 'true' && secure !== 'false') {
    problems.push(`AGENT_COOKIE_SECURE must be true or false (got '${secure}')`)
  }
  const provider = read(env, 'AGENT_LLM_PROVIDER') ?? 'openai'
  if (provider !== 'openai' && provider !== 'anthropic') {
    problems.push(`AGENT_LLM_PROVIDER must be openai or anthropic (got '${provider}')`)
  }
  const model = read(env, 'AGENT_MODEL')
  if (model === undefined) {
    problems.push('AGENT_MODEL is required (the model name, e.g. gpt-4o-mini, llama3.1, claude-sonnet-4-5)')
  }
  const llmUrl = url(env, 'AGENT_LLM_URL', undefined, problems)
  const maxToolRounds = int(env, 'AGENT_MAX_TOOL_ROUNDS', 8, 1, problems)
  const maxResultChars = int(env, 'AGENT_MAX_RESULT_CHARS', 16000, 500, problems)
  const learning = read(env, 'AGENT_LEARNING') ?? 'false'
  if (learning !== 'true' && learning !== 'false') {
    problems.push(`AGENT_LEARNING must be true or false (got '${learning}')`)
  }
  const serviceWriteTools = (read(env, 'AGENT_SERVICE_WRITE_TOOLS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  for (const name of serviceWriteTools) {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) {
      problems.push(`AGENT_SERVICE_WRITE_TOOLS must be comma-separated tool names (got '${name}')`)
    }
  }
  const signingSecret = read(env, 'SLACK_SIGNING_SECRET')
  const botToken = read(env, 'SLACK_BOT_TOKEN')
  if ((signingSecret === undefined) !== (botToken === undefined)) {
    problems.push('SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN go together (the Slack channel needs both)')
  }
  const slackApiUrl = url(env, 'SLACK_API_URL', undefined, problems)
  if (problems.length > 0) return { config: null, problems, warnings }
  return {
    config: {
      port,
      host,
      svcUrl,
      authMode: mode as 'service' | 'per-user',
      svcBearer,
      svcClientId,
      sessionSecret,
      cookieSecure: secure === 'true',
      agentKey,
      linkBaseUrl,
      storeUrl,
      storeUrlSet: read(env, 'STORE_URL') !== undefined,
      trustProxy,
      limits,
      accessTtlSeconds,
      refreshSkewSeconds,
      linkTtlSeconds,
      llm: {
        provider: provider as Provider,
        url: llmUrl,
        apiKey: read(env, 'AGENT_LLM_API_KEY'),
        model: model as string
      },
      maxToolRounds,
      maxResultChars,
      learning: learning === 'true',
      serviceWriteTools,
      ...(signingSecret !== undefined && botToken !== undefined
        ? { slack: { signingSecret, botToken, ...(slackApiUrl !== undefined ? { apiUrl: slackApiUrl } : {}) } }
        : {})
    },
    problems,
    warnings
  }
}

/**
 * Which `X-Forwarded-For` hops to believe for the person's address (the per-address limits and
 * the address forwarded to the service's sign-in). Unset: none, the socket peer is the person.
 */
function readTrustProxy (raw: string | undefined, problems: string[]): false | number | string[] {
  if (raw === undefined || raw === 'false' || raw === '0') return false
  if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw)
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const address = (e: string): boolean => {
    const [a, bits, ...rest] = e.split('/')
    return isIP(a) !== 0 && rest.length === 0 && (bits === undefined || /^\d{1,3}$/.test(bits))
  }
  if (entries.length > 0 && entries.every((e) => e === 'loopback' || address(e))) return entries
  problems.push(
    `AGENT_TRUST_PROXY must be a hop count (0-10) or comma-separated proxy addresses/CIDRs (or loopback); got '${raw}'`
  )
  return false
}
