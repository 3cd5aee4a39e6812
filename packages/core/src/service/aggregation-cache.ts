import { LRUCache } from 'lru-cache'

export interface AggregationResult {
  results: unknown[]
}

/**
 * Where declared aggregations' `cache.ttlSeconds` answers live. Core keeps them in this process;
 * a host with replicas passes a shared store (`@svc/surface` has one on Redis) so they agree.
 * Keys already carry the schema, aggregation, tenant, roles and params. A store that fails
 * should answer a miss (and swallow a failed set): the aggregation then simply runs.
 */
export interface AggregationCache {
  get: (key: string) => Promise<AggregationResult | undefined>
  set: (key: string, value: AggregationResult, ttlSeconds: number) => Promise<void>
  /**
   * A token that changes whenever `invalidate` is called for the schema (`scope`, the model key)
   * and this tenant or for the whole schema. It is part of the cache key, read before the
   * aggregation runs, so an answer computed before a write is never served after it — on every
   * replica that shares the token. A store without it keeps answers for their whole TTL.
   * Throwing skips the cache for that call.
   */
  generation?: (scope: string, userId: string) => Promise<string>
  /**
   * Awaited in the write path, before the writer gets its answer, after each write to a schema
   * with cached aggregations: `userId` is the owner of the written record, null for a bulk write
   * (the whole schema). A failure is logged and the write stands.
   */
  invalidate?: (scope: string, userId: string | null) => Promise<void>
}

/**
 * Generations kept in this process: a counter per schema and per schema and tenant. Bounded;
 * forgetting a tenant's counter (LRU) moves the floor, which retires every cached answer.
 */
export function memoryGenerations (max = 100_000): Required<Pick<AggregationCache, 'generation' | 'invalidate'>> {
  let floor = 0
  let next = 0
  const counters = new LRUCache<string, number>({
    max,
    dispose: (_v, _k, reason) => {
      if (reason === 'evict') floor = ++next
    }
  })
  const tenantKey = (scope: string, userId: string): string => `${scope}\u0000${userId}`
  return {
    generation: async (scope, userId) =>
      `${floor}.${counters.get(scope) ?? 0}.${counters.get(tenantKey(scope, userId)) ?? 0}`,
    invalidate: async (scope, userId) => {
      counters.set(userId === null ? scope : tenantKey(scope, userId), ++next)
    }
  }
}

/** The in-process default: bounded by entries and by size, so tenants × params cannot grow memory. */
export function memoryAggregationCache (opts: { max?: number; maxBytes?: number } = {}): AggregationCache {
  const lru = new LRUCache<string, AggregationResult>({
    max: opts.max ?? 10_000,
    maxSize: opts.maxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (v) => Math.max(1, JSON.stringify(v).length),
    ttlAutopurge: false
  })
  return {
    get: async (key) => lru.get(key),
    set: async (key, value, ttlSeconds) => {
      lru.set(key, value, { ttl: Math.max(1, Math.round(ttlSeconds * 1000)) })
    },
    ...memoryGenerations()
  }
}
