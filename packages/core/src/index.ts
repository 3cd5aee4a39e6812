import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import authPlugin, { parseDuration } from './auth/index.js'
import { Manifest } from './describe/manifest.js'
import { installErrorHandling } from './http/error-handler.js'
import { describeRoute } from './rest/describe-route.js'
import { resourceRoutes } from './rest/resource-routes.js'
import { ensureIndexes } from './service/indexes.js'
import { loadRegistry } from './schema/load.js'
import { RecordEvents, ResourceServices } from './service/index.js'
import type { SvcContext, SvcCoreOptions } from './types.js'
import { startPeriodic } from './periodic.js'
import { transactionsSupported } from './service/durable/transaction.js'
import { bulkWriteSupported } from './service/durable/one-command.js'
import { SchemaEvolution } from './evolution/index.js'
import { startupCheck, type SchemaCheckMode } from './evolution/startup-check.js'
import {
  DEFAULT_MAX_REQUEST_COST,
  DEFAULT_PAGE_SIZE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_TENANT_COST_PER_MINUTE,
  MAX_PAGE_SIZE,
  MAX_QUERY_TIMEOUT_MS
} from './values/limits.js'
import { CostBudget } from './service/cost/budget.js'
import { memoryUsageStore } from './service/cost/usage-store.js'
import { EventLog, eventLogSettings } from './service/event-log/index.js'

// The app author's face: the plugin, schemas and migrations, the errors to match on, the types of
// `app.svc` and of a request's context. Plugin authors find the rest in `@svc/core/kit`.
export {
  ErrorCodes,
  isErrorCode,
  ValidationError,
  InvalidTransitionError,
  UnauthenticatedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitedError,
  InternalError,
  type ErrorCode,
  type Issue,
  type SvcErrorLike
} from './errors.js'
export { defineSchema } from './schema/define.js'
export type * from './schema/define.js'
export { SchemaError } from './schema/schema-error.js'
export { defineMigration, type Migration, type MigrationDefinition, type MigrationResource } from './evolution/index.js'
export type {
  PublicResourceService as ResourceService,
  PublicResourceServices as ResourceServices
} from './service/public-service.js'
export type {
  RecordEvents,
  RecordEvent,
  ListQuery,
  ListResult,
  ReadOptions,
  RecordJson,
  WriteResult,
  AggregationCache,
  AggregationResult,
  UsageStore,
  Usage
} from './service/index.js'
export { svcServerOptions, requestTimeouts } from './http/server-options.js'
export type { Identity, RequestContext, Surface } from './identity.js'
export { SYSTEM_CONTEXT } from './http/request-context.js'
export type { SvcContext, SvcCoreOptions, SvcAuth, PasswordChangeBroadcast } from './types.js'
export type { CredentialHeaders } from './auth/authenticate.js'

const TWO_HOURS = 2 * 60 * 60

function wholeMs (name: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new Error(`@svc/core: option \`${name}\` must be a whole number of milliseconds (at least ${min})`)
  }
  return v
}

/** Writes interrupted by a crash get their durable effects (or lose their intent) once the app is ready, then periodically. */
function reconcileIntents (app: FastifyInstance, services: ResourceServices, intervalMs: number): void {
  const log = app.log.child({ name: '@svc/core.intents' })
  let timer: { stop: () => Promise<void> } | null = null
  app.addHook('onReady', async () => {
    await services.reconcileIntents()
    if (intervalMs > 0) {
      timer = startPeriodic(
        'write intent reconciliation',
        async () => await services.reconcileIntents(),
        intervalMs,
        log
      )
    }
  })
  app.addHook('onClose', async () => {
    await timer?.stop()
  })
}

/** The `transactions` option against the server: asked once, at start-up. */
async function useTransactions (app: FastifyInstance, db: SvcCoreOptions['db'], option: unknown): Promise<boolean> {
  if (option !== 'auto' && typeof option !== 'boolean') {
    throw new Error("@svc/core: option `transactions` must be 'auto', true or false")
  }
  const supported = option === false ? false : await transactionsSupported(db)
  if (option === true && !supported) {
    throw new Error(
      "@svc/core: option `transactions: true` but the server runs no transactions (a standalone mongod): use a replica set, or `transactions: 'auto'`"
    )
  }
  const on = option !== false && supported
  // Asked now rather than by the first create: whether a create and its effects go in one command.
  const oneCommandWrites = on && (await bulkWriteSupported(db.client))
  app.log
    .child({ name: '@svc/core' })
    .info(
      { transactions: on, option, oneCommandWrites },
      on ? 'durable effects commit in transactions' : 'durable effects commit through write-ahead intents'
    )
  return on
}

/** The cost options: per-request limit, tenant budget per minute (0 or false: none), the shared counter store. */
function costBudget (opts: SvcCoreOptions): CostBudget {
  const maxRequestCost = opts.maxRequestCost ?? DEFAULT_MAX_REQUEST_COST
  if (!Number.isInteger(maxRequestCost) || maxRequestCost < 1) {
    throw new Error('@svc/core: option `maxRequestCost` must be a positive integer')
  }
  const perMinute = opts.tenantCostPerMinute ?? DEFAULT_TENANT_COST_PER_MINUTE
  if (perMinute !== false && (!Number.isInteger(perMinute) || perMinute < 0)) {
    throw new Error('@svc/core: option `tenantCostPerMinute` must be a whole number >= 0 or false')
  }
  return new CostBudget({
    maxRequestCost,
    tenantCostPerMinute: perMinute === false || perMinute === 0 ? null : perMinute,
    store: opts.costStore ?? memoryUsageStore()
  })
}

async function svcCore (app: FastifyInstance, opts: SvcCoreOptions): Promise<void> {
  if (opts.db == null) throw new Error('@svc/core: option `db` (a mongodb Db) is required')
  if (typeof opts.jwtSecret !== 'string' || opts.jwtSecret.length === 0) {
    throw new Error('@svc/core: option `jwtSecret` is required')
  }
  const accessTokenTtlSeconds = parseDuration(opts.accessTokenTtl ?? 900)
  if (accessTokenTtlSeconds > TWO_HOURS) throw new Error('@svc/core: accessTokenTtl above the 2 h ceiling')
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new Error('@svc/core: option `pageSize` must be a positive integer')
  }
  const queryTimeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS
  if (!Number.isInteger(queryTimeoutMs) || queryTimeoutMs < 1 || queryTimeoutMs > MAX_QUERY_TIMEOUT_MS) {
    throw new Error(
      `@svc/core: option \`queryTimeoutMs\` must be a whole number of milliseconds between 1 and ${MAX_QUERY_TIMEOUT_MS}`
    )
  }
  const intentLeaseMs = wholeMs('intentLeaseMs', opts.intentLeaseMs ?? 15_000, 1)
  const intentReconcileMs = wholeMs('intentReconcileMs', opts.intentReconcileMs ?? 30_000, 0)
  const refreshTokenTtlSeconds = opts.refreshTokenTtl === undefined ? undefined : parseDuration(opts.refreshTokenTtl)
  if (opts.resetStalenessMs !== undefined && (!Number.isInteger(opts.resetStalenessMs) || opts.resetStalenessMs < 1)) {
    throw new Error('@svc/core: option `resetStalenessMs` must be a positive whole number of milliseconds')
  }
  if (opts.publicBaseUrl !== undefined && !/^https?:\/\/\S+$/.test(opts.publicBaseUrl)) {
    throw new Error('@svc/core: option `publicBaseUrl` must be an http(s) URL')
  }

  const schemaCheck: SchemaCheckMode = opts.schemaCheck ?? (process.env.NODE_ENV === 'production' ? 'refuse' : 'warn')
  if (!['refuse', 'warn', 'off'].includes(schemaCheck)) {
    throw new Error("@svc/core: option `schemaCheck` must be 'refuse', 'warn' or 'off'")
  }

  const cost = costBudget(opts)
  const eventLogOptions = eventLogSettings(opts.eventLog)
  const transactions = await useTransactions(app, opts.db, opts.transactions ?? 'auto')
  const registry = await loadRegistry({ schemaDir: opts.schemaDir, schemas: opts.schemas, log: app.log })
  const events = new RecordEvents(app.log.child({ name: '@svc/core.events' }))
  const services = new ResourceServices(registry, {
    db: opts.db,
    events,
    log: app.log.child({ name: '@svc/core' }),
    pageSize: Math.min(pageSize, MAX_PAGE_SIZE),
    queryTimeoutMs,
    intentLeaseMs,
    transactions,
    cost,
    cursorKey: () => svc.auth.deriveKey('svc-list-cursor'),
    ...(opts.aggregationCache !== undefined ? { aggregationCache: opts.aggregationCache } : {})
  })
  const svc: SvcContext = {
    db: opts.db,
    registry,
    services,
    events,
    transactions,
    cost,
    eventLog: new EventLog({
      db: opts.db,
      services: () => services.all(),
      transactions,
      log: app.log.child({ name: '@svc/core.events' }),
      cursorKey: () => svc.auth.deriveKey('svc-event-cursor'),
      settings: eventLogOptions
    }),
    config: {
      pageSize: Math.min(pageSize, MAX_PAGE_SIZE),
      bcryptRounds: opts.bcryptRounds ?? 10,
      accessTokenTtlSeconds,
      queryTimeoutMs,
      ...(opts.publicBaseUrl !== undefined ? { publicBaseUrl: opts.publicBaseUrl.replace(/\/+$/, '') } : {})
    },
    auth: null as unknown as SvcContext['auth'], // installed by the auth layer below
    features: {},
    manifest: null as unknown as Manifest, // needs `svc` itself, set just below
    evolution: new SchemaEvolution({
      db: opts.db,
      registry,
      services,
      ...(opts.schemaDir !== undefined ? { schemaDir: opts.schemaDir } : {})
    })
  }
  svc.manifest = new Manifest(svc)
  app.decorate('svc', svc)
  // Before any route: the manifest lists the routes actually registered, plugins' included.
  app.addHook('onRoute', svc.manifest.recordRoute)
  app.decorateRequest('identity', null)
  installErrorHandling(app, { production: opts.production ?? process.env.NODE_ENV === 'production' })
  // Before the indexes: a new unique index's duplicates are reported, not just refused by the build.
  const migrations = schemaCheck === 'off' ? [] : await svc.evolution.migrations()
  await startupCheck(
    { db: opts.db, registry, services, migrations, log: app.log.child({ name: '@svc/core.schema' }) },
    schemaCheck
  )
  if (opts.indexes !== false) await ensureIndexes(opts.db, registry)
  await app.register(authPlugin, {
    jwtSecret: opts.jwtSecret,
    accessTokenTtlSeconds,
    bcryptRounds: svc.config.bcryptRounds,
    refreshTokenTtlSeconds,
    publicBaseUrl: opts.publicBaseUrl,
    resetStalenessMs: opts.resetStalenessMs,
    passwordChangeBroadcast: opts.passwordChangeBroadcast
  })
  reconcileIntents(app, services, intentReconcileMs)
  // After the plugins registered (one may have enabled the log), and stopped before the database closes.
  app.addHook('onReady', async () => {
    await svc.eventLog.start()
  })
  app.addHook('onClose', async () => {
    await svc.eventLog.close()
  })
  describeRoute(app)
  for (const service of services.all()) {
    await app.register(resourceRoutes, { prefix: `/api/${service.model.version}`, service })
  }
}

export default fp(svcCore, { name: '@svc/core', fastify: '5.x' })
export { svcCore }
