import type { Db } from 'mongodb'
import type { FastifyRequest } from 'fastify'
import type { PasswordChangeBroadcast } from './auth/password-changes.js'
import type { CredentialHeaders } from './auth/authenticate.js'
import type { SendMail } from './auth/session.js'
import type { Manifest } from './describe/manifest.js'
import type { Identity } from './identity.js'
import type { Registry } from './schema/registry.js'
import type { AggregationCache } from './service/aggregation-cache.js'
import type { CostBudget } from './service/cost/budget.js'
import type { UsageStore } from './service/cost/usage-store.js'
import type { RecordEvents } from './service/index.js'
import type { PublicResourceServices } from './service/public-service.js'
import type { SchemaEvolution } from './evolution/index.js'
import type { EventLog, EventLogOptions } from './service/event-log/index.js'

export type { PasswordChangeBroadcast } from './auth/password-changes.js'

/** Options of the @svc/core plugin. The host app owns the MongoDB connection and passes its `Db`. */
export interface SvcCoreOptions {
  db: Db
  /** Schema root; files are `versions/<version>/*.{ts,mts,js,mjs}`. */
  schemaDir?: string
  /** In-memory schema definitions (tests, embedding); loaded in addition to `schemaDir`. */
  schemas?: unknown[]
  /** HS256 key for access tokens. */
  jwtSecret: string
  /** Seconds or a duration string (`15m`, `2h`); default 15 minutes, ceiling 2 hours. */
  accessTokenTtl?: number | string
  /** Default `__perPage` (default 20, capped at `MAX_PAGE_SIZE`). */
  pageSize?: number
  /**
   * Time bound (ms) of every query a caller drives — lists, counts, gets, includes, search,
   * aggregations, bulk updates: past it the database stops the query and the caller gets 503
   * QUERY_TIMEOUT. Default 5000, at most 600000.
   */
  queryTimeoutMs?: number
  /** bcrypt cost (default 10; tests may lower it). */
  bcryptRounds?: number
  /** Hide 5xx messages in responses; default `NODE_ENV === 'production'`. */
  production?: boolean
  /** Public address of the service (`https://api.example.com`); reset mails link to `<it>/reset-password?token=…`. */
  publicBaseUrl?: string
  /**
   * Where declared aggregations' `cache.ttlSeconds` answers are kept; default in this process
   * (`memoryAggregationCache()`). Replicas share answers through a shared store such as
   * `@svc/surface`'s Redis one.
   */
  aggregationCache?: AggregationCache
  /**
   * Largest price of one request — a REST call, an MCP tool call, a GraphQL document — in values
   * it can return (records × fields; a page counts its size, a hasMany relation `MAX_RELATED`
   * records). Costlier requests are 400 VALIDATION (`details.cost`, `details.limit`) before they
   * run. Default 250000.
   */
  maxRequestCost?: number
  /**
   * Price each tenant (user; api client; else client IP) may be charged per minute; past it, 429
   * RATE_LIMITED with `Retry-After`. `0` or `false`: no budget over time. Default 5000000.
   */
  tenantCostPerMinute?: number | false
  /**
   * Where the tenants' budgets over time are counted; default in this process
   * (`memoryUsageStore()`). Replicas share them through a shared store such as `@svc/surface`'s
   * Redis one.
   */
  costStore?: UsageStore
  /** Refresh token lifetime: seconds or a duration string (`30d`); default 30 days. */
  refreshTokenTtl?: number | string
  /**
   * Milliseconds another process may keep accepting an access token issued before a completed
   * password reset (each process caches users' `passwordChangedAt` this long); default 10000.
   * The process that completed the reset refuses such tokens at once.
   */
  resetStalenessMs?: number
  /**
   * Tells every process of a completed reset, so each forgets its cached `passwordChangedAt` at
   * once (the reset answers after `publish` resolves); `resetStalenessMs` then only bounds a lost message.
   */
  passwordChangeBroadcast?: PasswordChangeBroadcast
  /**
   * Durable effects (audit rows, the event log) on a standalone server: how long (ms) a writer
   * owns the write intent of a write in flight before a reconciler may settle it. Default 15000.
   */
  intentLeaseMs?: number
  /** How often (ms) interrupted writes' intents are reconciled (also once when the app is ready); default 30000, `0`: only at start-up. */
  intentReconcileMs?: number
  /**
   * How writes with durable effects commit: in one multi-document transaction each (`true`), or
   * with write-ahead intents (`false`). `'auto'` (default) asks the server once at start-up:
   * transactions on a replica set or mongos, intents on a standalone. `true` on a server
   * without transactions stops start-up.
   */
  transactions?: 'auto' | boolean
  /**
   * Start-up compares the schemas with the snapshot they were last served with and the stored
   * records (sampled): `refuse` stops start-up while migrations are pending or records do not fit
   * a change, `warn` logs and serves, `off` skips the check (and writes no snapshot). Default
   * `refuse` when `NODE_ENV` is `production`, else `warn`.
   */
  schemaCheck?: 'refuse' | 'warn' | 'off'
  /**
   * Create the schemas' indexes at start-up (default `true`). `false` opens the app on a database
   * without building anything there: `svc schema plan|apply` on a database whose files would
   * not start yet (a new unique index over duplicates).
   */
  indexes?: boolean
  /** The durable event log's loops (`app.svc.eventLog`, off until a plugin enables it): see EventLogOptions. */
  eventLog?: EventLogOptions
}

/** The authentication service the auth layer installs on `app.svc.auth`. */
export interface SvcAuth {
  /**
   * Resolves the caller from `Authorization: Bearer` (wins) or `X-Client-Id`.
   * Throws UnauthenticatedError (401) for a missing/invalid/expired/`alg:none` token or unknown client.
   * Sets and returns `request.identity`.
   */
  authenticate(request: FastifyRequest, opts?: { allowClient?: boolean }): Promise<Identity>
  /**
   * The same check of credentials that arrived without a request of their own (a WebSocket's
   * `connection_init`): the caller, or the same 401/403 errors. Sets nothing.
   */
  identify(headers: CredentialHeaders, opts?: { allowClient?: boolean }): Promise<Identity>
  /** Signs an access token with the configured secret (claims per CONTRACT.md). */
  mintAccessToken(
    claims: { user_id: string; email: string; roles: string[]; account_id?: string },
    ttlSeconds?: number
  ): string
  /**
   * A 32-byte key for one purpose (e.g. `files-signing`), derived from the JWT secret with HKDF:
   * plugins get a default secret of their own without ever holding the token key's bytes.
   */
  deriveKey(purpose: string): Buffer
}

/** `app.svc`: decorated once by core; plugins add members to it, never re-decorate. */
export interface SvcContext {
  db: Db
  /** Normalized resource models, keyed by `<version>/<path>`. */
  registry: Registry
  /** One resource service per model: the only code that reads or writes records. */
  services: PublicResourceServices
  /** Record events: `<path>.created|updated|deleted|transitioned`. Subscribers cannot fail a request. */
  events: RecordEvents
  /**
   * Whether writes with durable effects commit in transactions (decided at start-up from the
   * `transactions` option and the server) or through write-ahead intents.
   */
  transactions: boolean
  /**
   * The durable record-event log (`svc_events`) webhooks and realtime consume: off (no cost)
   * until a plugin calls `enable()` or `consume()` while registering.
   */
  eventLog: EventLog
  /** `publicBaseUrl` without a trailing slash, when given (plugins build absolute links from it). */
  /**
   * The cost model's budgets: the service charges its operations through it; a surface that
   * prices a request as a whole (GraphQL) charges it with `cost.chargeRequest(ctx, price)`.
   */
  cost: CostBudget
  config: Required<Pick<SvcCoreOptions, 'pageSize' | 'bcryptRounds' | 'queryTimeoutMs'>> & {
    accessTokenTtlSeconds: number
    publicBaseUrl?: string
  }
  auth: SvcAuth
  /**
   * Optional features loaded (the `_describe` manifest's `features`): each plugin sets its own
   * flag when registered, e.g. `softDelete`, `audit`. Absent means not loaded.
   */
  features: Record<string, boolean>
  /**
   * The `_describe` manifest and `<path>-schema` builder. GraphQL/MCP plugins name the operations
   * they register with `manifest.contribute(fn)`; REST routes are picked up as they register.
   */
  manifest: Manifest
  /**
   * Outgoing mail (password reset). Set by the host after registering core, e.g. the reference
   * server's SMTP mailer; unset, reset mails are written to the log (spec: no SMTP_HOST).
   */
  mailer?: SendMail
  /** Schema evolution: `plan()`, `apply()`, `migrations()`, `snapshot()` (what `svc schema …` runs). */
  evolution: SchemaEvolution
}

declare module 'fastify' {
  interface FastifyInstance {
    svc: SvcContext
  }
  interface FastifyRequest {
    identity: Identity | null
    /**
     * Counts `extra` more requests against the caller's rate limits, for one HTTP request that
     * carries several (a GraphQL document's aliased mutations, an MCP batch's calls); throws
     * RATE_LIMITED past a budget. Installed by a rate limiter (`@svc/surface`); absent without one.
     */
    countRequests?: (extra: number) => Promise<void>
  }
}
