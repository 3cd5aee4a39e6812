import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { Registry } from '../schema/registry.js'
import type { RecordEvents } from './events.js'
import { ResourceService } from './resource-service.js'
import { IdempotencyKeys } from './idempotency.js'
import { memoryAggregationCache, type AggregationCache } from './aggregation-cache.js'
import { IntentStore } from './durable/intents.js'
import { reconcilePass } from './durable/reconcile.js'
import type { CostBudget } from './cost/budget.js'

export { ResourceService } from './resource-service.js'
export { RecordEvents, type RecordEvent } from './events.js'
export type * from './types.js'
export type { Operation } from './tenancy.js'
export type { PurgeHook } from './purge.js'
export type { AudienceEvent, EventAudience } from './event-audience.js'
export {
  memoryAggregationCache,
  memoryGenerations,
  type AggregationCache,
  type AggregationResult
} from './aggregation-cache.js'
export type { DurableDoc, DurableEffect } from './durable/types.js'
export { INTENTS_COLLECTION } from './durable/intents.js'
export { CostBudget, tenantKey, type CostLimits } from './cost/budget.js'
export { memoryUsageStore, type UsageStore, type Usage } from './cost/usage-store.js'
export {
  AGGREGATION_PRICE,
  BULK_WRITE_PRICE,
  pageRecords,
  readPrice,
  recordValues,
  relatedRecords
} from './cost/price.js'

/** Resource services keyed like the registry: `<version>/<path>`. */
export class ResourceServices {
  readonly #byKey = new Map<string, ResourceService>()
  readonly #db: Db
  readonly #log: FastifyBaseLogger
  /** Write intents of durable effects without transactions (see durable/); reconciled in both modes. */
  readonly intents: IntentStore
  readonly intentLeaseMs: number

  constructor (
    registry: Registry,
    deps: {
      db: Db
      events: RecordEvents
      log: FastifyBaseLogger
      pageSize: number
      queryTimeoutMs: number
      intentLeaseMs: number
      transactions: boolean
      cost: CostBudget
      aggregationCache?: AggregationCache
      cursorKey?: () => Buffer
    }
  ) {
    const idempotency = new IdempotencyKeys(deps.db)
    // One store for every schema (keys name schema and aggregation): one memory bound in-process.
    const aggregationCache = deps.aggregationCache ?? memoryAggregationCache()
    this.#db = deps.db
    this.#log = deps.log
    this.intents = new IntentStore(deps.db)
    this.intentLeaseMs = deps.intentLeaseMs
    for (const model of registry.all()) {
      this.#byKey.set(
        model.key,
        new ResourceService(model, {
          collection: deps.db.collection(model.collection),
          events: deps.events,
          log: deps.log.child({ resource: model.key }),
          pageSize: deps.pageSize,
          queryTimeoutMs: deps.queryTimeoutMs,
          lookup: (path) => this.get(path, model.version),
          idempotency,
          aggregationCache,
          intents: this.intents,
          intentLeaseMs: deps.intentLeaseMs,
          transactions: deps.transactions,
          cost: deps.cost,
          ...(deps.cursorKey !== undefined ? { cursorKey: deps.cursorKey } : {})
        })
      )
    }
    // Relation `where` filters are cast against their targets now, so a bad one stops start-up.
    for (const s of this.#byKey.values()) s.relations.compile()
  }

  /** The service for a schema path; `version` defaults to v1. */
  get (path: string, version = 'v1'): ResourceService {
    const s = this.#byKey.get(`${version}/${path}`)
    if (s === undefined) throw new Error(`@svc/core: no schema '${path}' in version ${version}`)
    return s
  }

  all (): ResourceService[] {
    return [...this.#byKey.values()]
  }

  /**
   * Settles the write intents whose writer vanished (crash, kill): inserts the effects of
   * writes that happened, drops the intents of writes that did not. Core runs it when the app
   * is ready and every `intentReconcileMs`; safe on several replicas at once.
   */
  async reconcileIntents (): Promise<{ happened: number; dropped: number }> {
    return await reconcilePass(this.#db, this.intents, this.intentLeaseMs, this.#log)
  }
}
