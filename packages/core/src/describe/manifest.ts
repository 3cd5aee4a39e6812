import type { RouteOptions } from 'fastify'
import { describeModel } from '../schema/describe.js'
import type { ResourceModel } from '../schema/model.js'
import type { Registry } from '../schema/registry.js'

/** One REST route of a schema as the manifest lists it; `idempotent` marks the route taking `Idempotency-Key`. */
export interface RestEndpoint {
  method: string
  path: string
  idempotent?: true
}

/** A schema's live feed (`@svc/realtime`): the event types it emits and the stream that carries them. */
export interface RealtimeEndpoint {
  events: string[]
  stream: string
}

export interface ManifestEndpoints {
  rest: RestEndpoint[]
  /** `subscriptions` only when a plugin serves some (GraphQL subscriptions of `@svc/realtime`). */
  graphql: { queries: string[]; mutations: string[]; subscriptions?: string[] }
  mcp: string[]
  /** Present when a live feed serves the schema's events. */
  realtime?: RealtimeEndpoint
}

/** What a surface plugin names for one schema (see `contribute`). */
export interface ManifestContribution {
  graphql?: { queries?: string[]; mutations?: string[]; subscriptions?: string[] }
  mcp?: string[]
  realtime?: RealtimeEndpoint
}

/**
 * A surface plugin (GraphQL, MCP, realtime) that registers operations for a schema names them
 * here, so the manifest lists only what exists: `app.svc.manifest.contribute((model) => ({ mcp: [...] }))`.
 */
export type ManifestContributor = (model: ResourceModel) => ManifestContribution | undefined

/** The `features` booleans of the spec's manifest table. */
export interface ManifestFeatures {
  softDelete: boolean
  audit: boolean
  search: boolean
  files: boolean
  relations: boolean
  aggregations: boolean
  idempotency: boolean
  stateMachines: boolean
  webhooks: boolean
  /** A live change feed (`@svc/realtime`) is served. */
  realtime: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false` keeps a route out of `_describe` (e.g. a catch-all that only answers an error). */
    svcDescribe?: boolean
  }
}

/** The version segment a schema without `version` lives under; the manifest's top-level `version`. */
export const DEFAULT_VERSION = 'v1'

const ROUTE_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** What the manifest reads of `app.svc` (named here so that `types.ts`, which holds it, is not imported). */
export interface ManifestSource {
  registry: Registry
  features: Record<string, boolean>
  config: { accessTokenTtlSeconds: number }
}

/**
 * Builds `GET /_describe` and `GET /api/<v>/<path>-schema` from one function (`schema(model)`).
 * REST endpoints come from the routes actually registered (an `onRoute` hook installed by core
 * before any resource route), so a plugin that is not loaded is never advertised.
 */
export class Manifest {
  readonly #svc: ManifestSource
  readonly #routes: Array<{ method: string; url: string }> = []
  readonly #contributors: ManifestContributor[] = []
  readonly #sections = new Map<string, () => unknown>()
  #cache: { key: string; value: Record<string, unknown> } | null = null

  constructor (svc: ManifestSource) {
    this.#svc = svc
  }

  /** The `onRoute` hook: records method and full URL of every route registered after core. */
  readonly recordRoute = (route: RouteOptions): void => {
    if (route.config?.svcDescribe === false) return
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const m of methods) {
      if (ROUTE_METHODS.has(m.toUpperCase())) this.#routes.push({ method: m.toUpperCase(), url: route.url })
    }
  }

  /** Adds a GraphQL/MCP contributor (call it when the surface registers its operations). */
  contribute (fn: ManifestContributor): void {
    this.#contributors.push(fn)
  }

  /**
   * A top-level section of `_describe` a plugin owns (`realtime`: its endpoints and limits),
   * built when the manifest is; a name core uses, or one taken, is refused.
   */
  section (name: string, build: () => unknown): void {
    if (['version', 'features', 'schemas', 'auth'].includes(name) || this.#sections.has(name)) {
      throw new Error(`@svc/core: the _describe section '${name}' is taken`)
    }
    this.#sections.set(name, build)
  }

  /** Soft delete is effective when the schema keeps it on and @svc/softdelete is loaded. */
  softDelete (model: ResourceModel): boolean {
    return model.softDelete.enabled && this.#svc.features.softDelete === true
  }

  /** Audit is effective when the schema keeps it on and @svc/audit is loaded. */
  audit (model: ResourceModel): boolean {
    return model.audit && this.#svc.features.audit === true
  }

  /** One `schemas[]` entry; also the body of `GET /api/<v>/<path>-schema`. */
  schema (model: ResourceModel): Record<string, unknown> {
    const base = describeModel(model)
    const softDelete = this.softDelete(model)
    const fields = base.fields as Array<Record<string, unknown>>
    return {
      ...base,
      softDelete,
      audit: this.audit(model),
      fields: softDelete
        ? [
            ...fields,
            { name: 'deletedAt', type: 'date', required: false, stamped: true, searchable: false, computed: false }
          ]
        : fields,
      endpoints: this.endpoints(model)
    }
  }

  endpoints (model: ResourceModel): ManifestEndpoints {
    const prefix = `/api/${model.version}/`
    const create = `${prefix}${model.path}`
    const rest: RestEndpoint[] = []
    for (const r of this.#routes) {
      if (this.#owner(r.url) !== model) continue
      if (r.method === 'GET' && r.url === `${create}/aggregations/:name`) {
        for (const a of model.aggregations) rest.push({ method: 'GET', path: `${create}/aggregations/${a.name}` })
        continue
      }
      rest.push(
        r.method === 'POST' && r.url === create
          ? { method: 'POST', path: r.url, idempotent: true }
          : { method: r.method, path: r.url }
      )
    }
    const queries: string[] = []
    const mutations: string[] = []
    const subscriptions: string[] = []
    const mcp: string[] = []
    let realtime: RealtimeEndpoint | undefined
    for (const fn of this.#contributors) {
      const c = fn(model)
      queries.push(...(c?.graphql?.queries ?? []))
      mutations.push(...(c?.graphql?.mutations ?? []))
      subscriptions.push(...(c?.graphql?.subscriptions ?? []))
      mcp.push(...(c?.mcp ?? []))
      realtime ??= c?.realtime
    }
    const graphql = subscriptions.length > 0 ? { queries, mutations, subscriptions } : { queries, mutations }
    return { rest, graphql, mcp, ...(realtime !== undefined ? { realtime } : {}) }
  }

  features (): ManifestFeatures {
    const models = this.#svc.registry.all()
    const loaded = (name: string): boolean => this.#svc.features[name] === true
    return {
      softDelete: models.some((m) => this.softDelete(m)),
      audit: models.some((m) => this.audit(m)),
      search: models.some((m) => [...m.fieldsByPath.values()].some((f) => f.searchable)),
      files: loaded('files') && models.some((m) => [...m.fieldsByPath.values()].some((f) => f.kind === 'file')),
      relations: models.some((m) => Object.keys(m.relations).length > 0),
      aggregations: models.some((m) => m.aggregations.length > 0),
      idempotency: true,
      stateMachines: models.some((m) => Object.keys(m.stateMachines).length > 0),
      webhooks: loaded('webhooks'),
      realtime: loaded('realtime')
    }
  }

  /** The whole `GET /_describe` body; rebuilt only when features, routes or contributors changed. */
  describe (): Record<string, unknown> {
    const key = `${JSON.stringify(this.#svc.features)}|${this.#routes.length}|${this.#contributors.length}|${this.#sections.size}`
    if (this.#cache?.key === key) return this.#cache.value
    const value: Record<string, unknown> = {
      version: DEFAULT_VERSION,
      features: this.features(),
      schemas: this.#svc.registry.all().map((m) => this.schema(m)),
      auth: {
        endpoints: {
          register: '/register',
          login: '/login',
          refresh: '/auth/refresh',
          forgotPassword: '/auth/forgot-password',
          resetPassword: '/auth/reset-password'
        },
        tokenType: 'Bearer',
        tokenTtl: this.#svc.config.accessTokenTtlSeconds
      }
    }
    for (const [name, build] of this.#sections) value[name] = build()
    this.#cache = { key, value }
    return value
  }

  /** The schema a route belongs to: `/api/<v>/<path>`, `…/<path>-schema` or `…/<path>/…` (longest path wins). */
  #owner (url: string): ResourceModel | undefined {
    let best: ResourceModel | undefined
    for (const m of this.#svc.registry.all()) {
      const base = `/api/${m.version}/${m.path}`
      if (url !== base && url !== `${base}-schema` && !url.startsWith(`${base}/`)) continue
      if (best === undefined || m.path.length > best.path.length) best = m
    }
    return best
  }
}
