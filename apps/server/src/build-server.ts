import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Db } from 'mongodb'
import svcCore, { requestTimeouts, svcServerOptions } from '@svc/core'
import { DEFAULT_VERSION } from '@svc/core/kit'
import svcAudit from '@svc/audit'
import svcConsole from '@svc/console'
import { agentConversationsSchema, learningSchemas } from '@svc/agent/schemas'
import svcFiles from '@svc/files'
import svcGraphql from '@svc/graphql'
import svcMcp from '@svc/mcp'
import svcSoftDelete from '@svc/softdelete'
import svcWebhooks from '@svc/webhooks'
import svcRealtime from '@svc/realtime'
import svcSurface from '@svc/surface'
import { clusterStores, exposeWorkerId, workerServerOptions } from './cluster/worker-id.js'
import type { ServerConfig } from './config.js'
import { healthRoute } from './health.js'
import { redisPasswordBroadcast } from './password-broadcast.js'
import { AccessLogController, loggerOptions } from './logger.js'
import { createSmtpMailer } from './mail/smtp-mailer.js'
import { exposeRequestId, genReqId } from './request-id.js'

/** Fastify's typings lack its hop-count form; this is what it does with a number (proxy-addr semantics). */
function trustProxy (
  setting: ServerConfig['trustProxy']
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting
}

export interface BuildServerOptions {
  /** The database the app serves; the caller owns (and closes) its client. */
  db: Db
  /** Override the logger (tests pass `false` or a capturing stream). */
  logger?: FastifyServerOptions['logger']
  /**
   * Open the app on the database without changing it at start-up: no schema check, no snapshot,
   * no index builds (`svc schema plan|apply`, which never call `ready()`: no worker starts).
   */
  maintenance?: boolean
}

/** The reference composition: logging, request ids, readiness, and the svc plugins. */
export async function buildServer (config: ServerConfig, opts: BuildServerOptions): Promise<FastifyInstance> {
  // A cluster worker without Redis shares counters and cache generations through its primary.
  const shared = config.workerId !== undefined && config.redisUrl === undefined ? await clusterStores() : null
  const app = Fastify({
    // The router's and Node's own refusals (long ids, 431, malformed requests) in the envelope.
    ...svcServerOptions,
    // A request (headers and body) must arrive within REQUEST_TIMEOUT_MS: else 408, connection closed.
    ...requestTimeouts(config.requestTimeoutMs),
    logger: opts.logger ?? loggerOptions(config),
    logController: new AccessLogController(),
    genReqId,
    // Our genReqId reads the header itself and only trusts UUIDs.
    requestIdHeader: false,
    // The client IP of rate limits and logs: X-Forwarded-For only from the proxies TRUST_PROXY names.
    trustProxy: trustProxy(config.trustProxy),
    ...workerServerOptions(config.workerId)
  })
  exposeRequestId(app)
  exposeWorkerId(app, config.workerId)
  // Before core and every surface: its hooks (metrics, rate limits) cover the routes registered after it.
  await app.register(svcSurface, {
    metrics: config.metricsEnabled
      ? { ...(config.metricsToken !== undefined ? { token: config.metricsToken } : {}) }
      : false,
    // Spec: rate limits are skipped when NODE_ENV=test.
    cors: { origins: config.corsOrigins },
    docs: { title: 'svc API', version: DEFAULT_VERSION },
    rateLimit:
      config.nodeEnv === 'test'
        ? false
        : {
            apiPerMin: config.rateLimitApiPerMin,
            authPerMin: config.rateLimitAuthPerMin,
            authPerEmailPerMin: config.rateLimitAuthPerEmailPerMin
          },
    loadShedding: { maxEventLoopDelayMs: config.loadShedEventLoopDelayMs },
    ...(config.redisUrl !== undefined ? { redis: config.redisUrl } : {}),
    ...(shared !== null ? { usageStore: shared.usageStore } : {})
  })
  await app.register(svcCore, {
    db: opts.db,
    schemaDir: config.schemaDir,
    // The agent keeps conversations, memory, persona, skills and customer profiles in the service.
    ...(config.agentLearning ? { schemas: [agentConversationsSchema, ...learningSchemas] } : {}),
    jwtSecret: config.jwtSecret,
    accessTokenTtl: config.accessTokenTtlSeconds,
    pageSize: config.pageSize,
    queryTimeoutMs: config.queryTimeoutMs,
    // A schema change whose records do not fit yet: refused in production unless SCHEMA_CHECK=warn.
    ...(opts.maintenance === true
      ? { schemaCheck: 'off' as const, indexes: false }
      : { schemaCheck: config.schemaCheck }),
    maxRequestCost: config.requestCostLimit,
    // Spec: rate limits are skipped when NODE_ENV=test; the tenant's cost budget over time is one.
    tenantCostPerMinute: config.nodeEnv === 'test' ? false : config.rateLimitCostPerMin,
    // The rate limits' counters: with REDIS_URL the tenants' cost budgets are shared by the replicas too.
    costStore: app.svcSurface.usageStore,
    // With REDIS_URL, cached aggregation answers are shared by the replicas.
    ...(app.svcSurface.aggregationCache !== null ? { aggregationCache: app.svcSurface.aggregationCache } : {}),
    ...(shared !== null ? { aggregationCache: shared.aggregationCache } : {}),
    // Completed password resets reach the other workers (the primary) or replicas (Redis) at once.
    ...(shared !== null ? { passwordChangeBroadcast: shared.passwordChangeBroadcast } : {}),
    ...(app.svcSurface.redis !== null
      ? { passwordChangeBroadcast: redisPasswordBroadcast(app, app.svcSurface.redis) }
      : {}),
    // Reset mails link to `${PUBLIC_BASE_URL}/reset-password?token=…`.
    publicBaseUrl: config.publicBaseUrl
  })
  // Spec defaults: soft delete and audit are on for every schema unless it opts out.
  await app.register(svcSoftDelete, {
    retentionDays: config.softDeleteRetentionDays,
    // Fractional seconds allowed; the timer needs whole milliseconds.
    sweepIntervalMs: Math.max(1, Math.round(config.softDeleteSweepSeconds * 1000))
  })
  await app.register(svcAudit)
  const { bucket, region, endpoint } = config.s3
  await app.register(svcFiles, {
    uploadsDir: config.uploadsDir,
    publicBaseUrl: config.publicBaseUrl,
    // Unset: derived from JWT_SECRET by core (never the same bytes).
    ...(config.filesSigningSecret !== undefined ? { signingSecret: config.filesSigningSecret } : {}),
    // Credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID…, profiles, instance roles).
    ...(bucket !== undefined && region !== undefined
      ? { s3: { bucket, region, ...(endpoint !== undefined ? { endpoint } : {}) } }
      : {})
  })
  // Record events to tenants' subscribed URLs (and schema-declared endpoints), from core's durable event log.
  await app.register(svcWebhooks, {
    retrySchedule: config.webhookRetrySchedule,
    // CONTRACT: NODE_ENV=test relaxes the private-address check (local receivers in tests).
    allowPrivateUrls: config.nodeEnv === 'test'
  })
  // The live feed (GET /api/v1/_events, SSE) from the same event log; before GraphQL, whose
  // subscriptions it serves.
  await app.register(svcRealtime, config.realtime)
  // GraphQL at POST /graphql, generated now from the registry: after soft delete and audit,
  // whose operations it includes. GraphiQL and introspection outside production unless set.
  await app.register(svcGraphql, {
    production: config.nodeEnv === 'production',
    ...(config.graphqlIntrospection !== undefined ? { introspection: config.graphqlIntrospection } : {}),
    ...(config.graphqlGraphiql !== undefined ? { graphiql: config.graphqlGraphiql } : {})
  })
  // MCP tools for AI agents at POST /mcp; built on ready from the registry and the plugins above.
  // MCP_TOOLS=compact, MCP_READ_ONLY, MCP_EXCLUDE: a tool budget for clients that load few tools.
  await app.register(svcMcp, { production: config.nodeEnv === 'production', ...config.mcp })
  // The data console at /console: static pages over the public API (the visitor's own token);
  // core's reset mails link to /reset-password, which leads to its reset form.
  await app.register(svcConsole, { resetPasswordPage: true })
  const { smtp } = config
  // Without SMTP_HOST core writes reset mails to the log (spec).
  if (smtp.host !== undefined && smtp.from !== undefined) {
    app.svc.mailer = createSmtpMailer({
      host: smtp.host,
      port: smtp.port,
      user: smtp.user,
      pass: smtp.pass,
      from: smtp.from
    })
  }
  healthRoute(app)
  return app
}
