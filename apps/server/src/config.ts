import { randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import {
  DEFAULT_MAX_REQUEST_COST,
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_TENANT_COST_PER_MINUTE,
  MAX_PAGE_SIZE,
  MAX_QUERY_TIMEOUT_MS,
  parseDuration
} from '@svc/core/kit'
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '@svc/webhooks'

const TWO_HOURS = 2 * 60 * 60
const NODE_ENVS = ['development', 'test', 'production'] as const
export type NodeEnv = (typeof NODE_ENVS)[number]
/** pino's levels; `silent` turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
const SCHEMA_CHECKS = ['refuse', 'warn', 'off'] as const
export type SchemaCheck = (typeof SCHEMA_CHECKS)[number]

/** The reference server's settings, read from the environment per CONTRACT.md's table. */
export interface ServerConfig {
  port: number
  host: string
  nodeEnv: NodeEnv
  logLevel: LogLevel
  /** Unset: the embedded development database is started in DATA_DIR. */
  mongodbUri?: string
  dataDir: string
  allowEmbeddedDb: boolean
  schemaDir: string
  jwtSecret: string
  /** True when JWT_SECRET was unset and a random per-process secret was generated. */
  jwtSecretGenerated: boolean
  accessTokenTtlSeconds: number
  pageSize: number
  /** Time bound of every query a caller drives (QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number
  /** SCHEMA_CHECK: start-up with schema changes that still need data — refuse (production default), warn, off. */
  schemaCheck: SchemaCheck
  /** Time a whole request (headers and body) may take to arrive (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number
  /** Largest price of one request (REQUEST_COST_LIMIT). */
  requestCostLimit: number
  /** Price each tenant may be charged per minute (RATE_LIMIT_COST_PER_MIN). */
  rateLimitCostPerMin: number
  /** Event-loop lag (ms) past which requests are shed with 503 (LOAD_SHED_EVENT_LOOP_DELAY_MS); 0: never. */
  loadShedEventLoopDelayMs: number
  uploadsDir: string
  /** HMAC key of local download URLs; unset, @svc/files derives one from JWT_SECRET. */
  filesSigningSecret?: string
  publicBaseUrl: string
  metricsEnabled: boolean
  metricsToken?: string
  /** CONTRACT "The agent process": load @svc/agent's conversation and learning-layer schemas. */
  agentLearning: boolean
  /** GraphQL introspection and GraphiQL; unset, on outside production only. */
  graphqlIntrospection?: boolean
  graphqlGraphiql?: boolean
  /** MCP_TOOLS, MCP_READ_ONLY, MCP_EXCLUDE: which MCP tools the server offers (@svc/mcp's tool budget). */
  mcp: { tools: 'full' | 'compact'; readOnly: boolean; exclude: string[] }
  corsOrigins: string[]
  rateLimitApiPerMin: number
  rateLimitAuthPerMin: number
  /** Auth requests per minute per e-mail address (RATE_LIMIT_AUTH_PER_EMAIL_PER_MIN). */
  rateLimitAuthPerEmailPerMin: number
  /** Fastify's `trustProxy`: false (the socket peer is the client), a hop count, or the proxies' addresses. */
  trustProxy: false | number | string[]
  /** May be fractional (CONTRACT "Soft delete"). */
  softDeleteRetentionDays?: number
  /** How often this process runs the retention sweep (SOFT_DELETE_SWEEP_SECONDS). */
  softDeleteSweepSeconds: number
  /** Seconds between webhook delivery attempts (WEBHOOK_RETRY_SCHEDULE). */
  webhookRetrySchedule: number[]
  /** CONTRACT "Realtime": resume window, heartbeat period, streams per tenant (REALTIME_*). */
  realtime: { retentionHours: number; heartbeatSeconds: number; maxStreamsPerUser: number }
  redisUrl?: string
  /** SVC_WORKERS: processes serving one port (`auto`: the available cores); above 1 a cluster primary runs them. */
  workers: number
  /** SVC_WORKER_ID: set by the cluster primary in each worker; answers then carry `x-svc-worker`. */
  workerId?: string
  smtp: { host?: string; port: number; user?: string; pass?: string; from?: string }
  s3: { bucket?: string; region?: string; endpoint?: string }
}

export interface ConfigResult {
  config: ServerConfig | null
  /** One line per problem, each naming its variable. */
  problems: string[]
  warnings: string[]
}

type Env = Record<string, string | undefined>

function read (env: Env, name: string): string | undefined {
  const v = env[name]
  return v === undefined || v.trim() === '' ? undefined : v.trim()
}

/**
 * Validates the whole environment and reports every problem at once (an operator fixes them in
 * one go), instead of failing on the first. Never throws.
 */
export function loadConfig (env: Env = process.env): ConfigResult {
  const problems: string[] = []
  const warnings: string[] = []

  const int = (name: string, dflt: number, min: number, max: number): number => {
    const raw = read(env, name)
    if (raw === undefined) return dflt
    const n = Number(raw)
    if (!/^\d+$/.test(raw) || n < min || n > max) {
      problems.push(`${name} must be a whole number between ${min} and ${max} (got "${raw}")`)
      return dflt
    }
    return n
  }
  /** A positive number, fractions allowed. */
  const positive = (name: string, max: number): number | undefined => {
    const raw = read(env, name)
    if (raw === undefined) return undefined
    const n = Number(raw)
    if (!/^\d+(\.\d+)?$|^\.\d+$/.test(raw) || !(n > 0) || n > max) {
      problems.push(`${name} must be a positive number up to ${max}, fractions allowed (got "${raw}")`)
      return undefined
    }
    return n
  }
  const bool = (name: string): boolean => {
    const raw = read(env, name)
    if (raw === undefined) return false
    if (raw === 'true' || raw === '1') return true
    if (raw === 'false' || raw === '0') return false
    problems.push(`${name} must be "true" or "false" (got "${raw}")`)
    return false
  }

  const rawEnv = read(env, 'NODE_ENV') ?? 'development'
  let nodeEnv: NodeEnv = 'development'
  if ((NODE_ENVS as readonly string[]).includes(rawEnv)) nodeEnv = rawEnv as NodeEnv
  else problems.push(`NODE_ENV must be one of ${NODE_ENVS.join(', ')} (got "${rawEnv}")`)
  const production = nodeEnv === 'production'

  const rawLevel = read(env, 'LOG_LEVEL') ?? 'info'
  let logLevel: LogLevel = 'info'
  if ((LOG_LEVELS as readonly string[]).includes(rawLevel)) logLevel = rawLevel as LogLevel
  else problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${rawLevel}")`)

  const rawCheck = read(env, 'SCHEMA_CHECK') ?? (production ? 'refuse' : 'warn')
  let schemaCheck: SchemaCheck = production ? 'refuse' : 'warn'
  if ((SCHEMA_CHECKS as readonly string[]).includes(rawCheck)) schemaCheck = rawCheck as SchemaCheck
  else problems.push(`SCHEMA_CHECK must be one of ${SCHEMA_CHECKS.join(', ')} (got "${rawCheck}")`)

  const port = int('PORT', 3000, 0, 65535)
  const host = read(env, 'HOST') ?? (production ? '0.0.0.0' : '127.0.0.1')

  const mongodbUri = read(env, 'MONGODB_URI')
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    problems.push('MONGODB_URI must start with mongodb:// or mongodb+srv://')
  }
  const allowEmbeddedDb = bool('SVC_ALLOW_EMBEDDED_DB')
  if (production && mongodbUri === undefined && !allowEmbeddedDb) {
    problems.push(
      'MONGODB_URI is required when NODE_ENV=production (the embedded database is for development; set SVC_ALLOW_EMBEDDED_DB=true to use it anyway)'
    )
  }

  let jwtSecret = read(env, 'JWT_SECRET')
  let jwtSecretGenerated = false
  if (jwtSecret === undefined) {
    if (production) problems.push('JWT_SECRET is required when NODE_ENV=production')
    else {
      jwtSecret = randomBytes(32).toString('hex')
      jwtSecretGenerated = true
      warnings.push(
        'JWT_SECRET is unset: using a random secret for this process; tokens stop working at restart (keep them: JWT_SECRET=$(openssl rand -hex 32))'
      )
    }
  } else if (production && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters when NODE_ENV=production')
  }

  let accessTokenTtlSeconds = 900
  const rawTtl = read(env, 'ACCESS_TOKEN_TTL')
  if (rawTtl !== undefined) {
    try {
      accessTokenTtlSeconds = parseDuration(rawTtl)
      if (accessTokenTtlSeconds > TWO_HOURS) {
        problems.push(`ACCESS_TOKEN_TTL must be at most 2h (7200 seconds); got "${rawTtl}"`)
      }
    } catch {
      problems.push(`ACCESS_TOKEN_TTL must be seconds (900) or a duration (15m, 2h); got "${rawTtl}"`)
    }
  }

  const pageSize = int('PAGE_SIZE', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)
  const queryTimeoutMs = int('QUERY_TIMEOUT_MS', DEFAULT_QUERY_TIMEOUT_MS, 1, MAX_QUERY_TIMEOUT_MS)
  const rateLimitApiPerMin = int('RATE_LIMIT_API_PER_MIN', 600, 1, 1_000_000)
  const rateLimitAuthPerMin = int('RATE_LIMIT_AUTH_PER_MIN', 10, 1, 1_000_000)
  const rateLimitAuthPerEmailPerMin = int('RATE_LIMIT_AUTH_PER_EMAIL_PER_MIN', 5, 1, 1_000_000)
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, 1000, 600_000)
  const requestCostLimit = int('REQUEST_COST_LIMIT', DEFAULT_MAX_REQUEST_COST, 1, 1_000_000_000)
  const rateLimitCostPerMin = int('RATE_LIMIT_COST_PER_MIN', DEFAULT_TENANT_COST_PER_MINUTE, 1, 1_000_000_000_000)
  // Off under NODE_ENV=test, like the rate limits: test machines run many servers on few cores.
  const loadShedEventLoopDelayMs = int('LOAD_SHED_EVENT_LOOP_DELAY_MS', nodeEnv === 'test' ? 0 : 1000, 0, 600_000)
  const retention = positive('SOFT_DELETE_RETENTION_DAYS', 36_500)
  const sweepSeconds = positive('SOFT_DELETE_SWEEP_SECONDS', 7 * 24 * 60 * 60) ?? 3600
  let webhookRetrySchedule = DEFAULT_RETRY_SCHEDULE
  const rawSchedule = read(env, 'WEBHOOK_RETRY_SCHEDULE')
  if (rawSchedule !== undefined) {
    try {
      webhookRetrySchedule = parseRetrySchedule(rawSchedule)
    } catch (err) {
      problems.push((err as Error).message)
    }
  }
  const realtime = {
    retentionHours: positive('REALTIME_RETENTION_HOURS', 24 * 365) ?? 24,
    heartbeatSeconds: positive('REALTIME_HEARTBEAT_SECONDS', 3600) ?? 15,
    maxStreamsPerUser: int('REALTIME_MAX_STREAMS_PER_USER', 20, 1, 100_000)
  }
  const smtpPort = int('SMTP_PORT', 587, 1, 65535)
  const workers = readWorkers(read(env, 'SVC_WORKERS'), problems)
  const mailFrom = read(env, 'MAIL_FROM')
  if (production && read(env, 'SMTP_HOST') === undefined) {
    warnings.push('SMTP_HOST is unset: password-reset mails (with their tokens) are written to the log')
  }
  if (read(env, 'SMTP_HOST') !== undefined && (mailFrom === undefined || !/^[^\s<>@]+@[^\s<>@]+$/.test(mailFrom))) {
    problems.push('MAIL_FROM must be set to a plain e-mail address (no display name) when SMTP_HOST is set')
  }

  const publicBaseUrl = read(env, 'PUBLIC_BASE_URL') ?? `http://${host}:${port}`
  if (!/^https?:\/\/\S+$/.test(publicBaseUrl)) {
    problems.push(`PUBLIC_BASE_URL must be an http(s) URL (got "${publicBaseUrl}")`)
  }

  const metricsEnabled = bool('METRICS_ENABLED')
  const agentLearning = bool('AGENT_LEARNING')
  // Unset keeps @svc/graphql's default (on outside production); set, it wins either way.
  const graphqlIntrospection =
    read(env, 'GRAPHQL_INTROSPECTION') === undefined ? undefined : bool('GRAPHQL_INTROSPECTION')
  const graphqlGraphiql = read(env, 'GRAPHQL_GRAPHIQL') === undefined ? undefined : bool('GRAPHQL_GRAPHIQL')
  const mcpTools = read(env, 'MCP_TOOLS') ?? 'full'
  if (mcpTools !== 'full' && mcpTools !== 'compact') {
    problems.push(`MCP_TOOLS must be full or compact (got "${mcpTools}")`)
  }
  const mcp = {
    tools: mcpTools === 'compact' ? ('compact' as const) : ('full' as const),
    readOnly: bool('MCP_READ_ONLY'),
    // Names are checked against the loaded schemas when the tools are built (start-up).
    exclude: (read(env, 'MCP_EXCLUDE') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
  }
  const trustProxy = readTrustProxy(read(env, 'TRUST_PROXY'), problems)
  const corsOrigins = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  // Browsers send an exact origin (scheme://host[:port]); anything else would never match.
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s?#]+$/.test(origin)) {
      problems.push(
        `CORS_ORIGINS entries must be origins like https://app.example.com (no path, no trailing slash, no "*"); got "${origin}"`
      )
    }
  }

  const filesSigningSecret = read(env, 'FILES_SIGNING_SECRET')
  if (production && filesSigningSecret !== undefined && filesSigningSecret.length < 32) {
    problems.push('FILES_SIGNING_SECRET must be at least 32 characters when NODE_ENV=production')
  }
  const s3 = {
    bucket: read(env, 'STORAGE_S3_BUCKET'),
    region: read(env, 'STORAGE_S3_REGION'),
    endpoint: read(env, 'STORAGE_S3_ENDPOINT')
  }
  if (s3.bucket !== undefined && s3.region === undefined) {
    problems.push('STORAGE_S3_REGION is required when STORAGE_S3_BUCKET is set')
  }
  if ((s3.region !== undefined || s3.endpoint !== undefined) && s3.bucket === undefined) {
    problems.push('STORAGE_S3_BUCKET is required when STORAGE_S3_REGION or STORAGE_S3_ENDPOINT is set')
  }
  if (s3.endpoint !== undefined && !/^https?:\/\/\S+$/.test(s3.endpoint)) {
    problems.push(`STORAGE_S3_ENDPOINT must be an http(s) URL (got "${s3.endpoint}")`)
  }

  if (problems.length > 0 || jwtSecret === undefined) return { config: null, problems, warnings }
  return {
    problems,
    warnings,
    config: {
      port,
      host,
      nodeEnv,
      logLevel,
      mongodbUri,
      dataDir: read(env, 'DATA_DIR') ?? './.data',
      allowEmbeddedDb,
      schemaDir: read(env, 'SCHEMA_DIR') ?? './schema',
      jwtSecret,
      jwtSecretGenerated,
      accessTokenTtlSeconds,
      pageSize,
      queryTimeoutMs,
      schemaCheck,
      requestTimeoutMs,
      requestCostLimit,
      rateLimitCostPerMin,
      loadShedEventLoopDelayMs,
      uploadsDir: read(env, 'UPLOADS_DIR') ?? './uploads',
      filesSigningSecret,
      publicBaseUrl,
      metricsEnabled,
      metricsToken: read(env, 'METRICS_TOKEN'),
      agentLearning,
      ...(graphqlIntrospection !== undefined ? { graphqlIntrospection } : {}),
      ...(graphqlGraphiql !== undefined ? { graphqlGraphiql } : {}),
      mcp,
      corsOrigins,
      rateLimitApiPerMin,
      rateLimitAuthPerMin,
      rateLimitAuthPerEmailPerMin,
      trustProxy,
      softDeleteRetentionDays: retention,
      softDeleteSweepSeconds: sweepSeconds,
      webhookRetrySchedule,
      realtime,
      redisUrl: read(env, 'REDIS_URL'),
      workers,
      workerId: read(env, 'SVC_WORKER_ID'),
      smtp: {
        host: read(env, 'SMTP_HOST'),
        port: smtpPort,
        user: read(env, 'SMTP_USER'),
        pass: read(env, 'SMTP_PASS'),
        from: mailFrom
      },
      s3
    }
  }
}

/** `SVC_WORKERS`: a count from 1 to 64, or `auto` for the cores this process may use. */
function readWorkers (raw: string | undefined, problems: string[]): number {
  if (raw === undefined) return 1
  if (raw === 'auto') return availableParallelism()
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 64) return Number(raw)
  problems.push(`SVC_WORKERS must be a number from 1 to 64 or "auto" (got "${raw}")`)
  return 1
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isProxyAddress (entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true
  const [addr, bits, ...rest] = entry.split('/')
  const family = isIP(addr)
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

/**
 * Which `X-Forwarded-For` hops to believe for the client IP (rate limits are per IP). Unset: none,
 * the socket peer is the client. `true` is refused: trusting every hop lets a client pick its IP.
 */
function readTrustProxy (raw: string | undefined, problems: string[]): false | number | string[] {
  if (raw === undefined || raw === 'false') return false
  if (/^\d+$/.test(raw) && Number(raw) <= 10) return Number(raw) === 0 ? false : Number(raw)
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (entries.length > 0 && entries.every(isProxyAddress)) return entries
  problems.push(
    `TRUST_PROXY must be a hop count (0-10) or comma-separated proxy addresses/CIDRs (loopback, linklocal, uniquelocal allowed); got "${raw}"`
  )
  return false
}

/** The start-up message: every problem on its own line. */
export function formatProblems (problems: string[]): string {
  return `svc: invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`
}
