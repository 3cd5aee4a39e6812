import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import svcCore, { type SvcCoreOptions } from '@svc/core'
import svcAudit, { type AuditOptions } from '@svc/audit'
import svcConsole, { type ConsoleOptions } from '@svc/console'
import svcFiles, { type FilesOptions } from '@svc/files'
import svcGraphql, { type GraphqlOptions } from '@svc/graphql'
import svcMcp, { type McpOptions } from '@svc/mcp'
import svcRealtime, { type RealtimeOptions } from '@svc/realtime'
import svcSoftDelete, { type SoftDeleteOptions } from '@svc/softdelete'
import svcSurface, { type SurfaceOptions } from '@svc/surface'
import svcWebhooks, { type WebhooksOptions } from '@svc/webhooks'

/** One options object for the whole plugin set: `core` is required, every other key is on unless `false`. */
export interface SvcAllOptions {
  /** `@svc/core`'s options (`db`, `jwtSecret`, `schemaDir` or `schemas`…). */
  core: SvcCoreOptions
  /** API docs, metrics, rate limits, CORS, security headers, load shedding. */
  surface?: SurfaceOptions | false
  softdelete?: SoftDeleteOptions | false
  audit?: AuditOptions | false
  files?: FilesOptions | false
  webhooks?: WebhooksOptions | false
  realtime?: RealtimeOptions | false
  graphql?: GraphqlOptions | false
  mcp?: McpOptions | false
  console?: ConsoleOptions | false
}

/** The plugins of the set, in registration order (the order the reference server uses). */
export const SVC_PLUGINS = [
  'surface',
  'core',
  'softdelete',
  'audit',
  'files',
  'webhooks',
  'realtime',
  'graphql',
  'mcp',
  'console'
] as const

const enabled = <T>(value: T | false | undefined): value is T | undefined => value !== false

async function registerAll (app: FastifyInstance, opts: SvcAllOptions): Promise<void> {
  if (opts?.core == null) {
    throw new Error('@svc/all: options.core (the @svc/core options: db, jwtSecret, schemas) is required')
  }
  // First: surface's hooks (metrics, rate limits) cover every route registered after it.
  if (enabled(opts.surface)) await app.register(svcSurface, opts.surface ?? {})
  // Core charges tenants' cost budgets on surface's counters (shared through Redis when it has one).
  const shared = enabled(opts.surface)
    ? {
        costStore: app.svcSurface.usageStore,
        ...(app.svcSurface.aggregationCache !== null ? { aggregationCache: app.svcSurface.aggregationCache } : {})
      }
    : {}
  await app.register(svcCore, { ...shared, ...opts.core })
  if (enabled(opts.softdelete)) await app.register(svcSoftDelete, opts.softdelete ?? {})
  if (enabled(opts.audit)) await app.register(svcAudit, opts.audit ?? {})
  if (enabled(opts.files)) await app.register(svcFiles, opts.files ?? {})
  if (enabled(opts.webhooks)) await app.register(svcWebhooks, opts.webhooks ?? {})
  // Before GraphQL, whose subscriptions it serves; GraphQL and MCP after soft delete and audit,
  // whose operations and tools they include.
  if (enabled(opts.realtime)) await app.register(svcRealtime, opts.realtime ?? {})
  if (enabled(opts.graphql)) await app.register(svcGraphql, opts.graphql ?? {})
  if (enabled(opts.mcp)) await app.register(svcMcp, opts.mcp ?? {})
  if (enabled(opts.console)) await app.register(svcConsole, opts.console ?? {})
}

const svcAll = fp(registerAll, { name: '@svc/all', fastify: '5.x' })
export { svcAll }
export default svcAll
