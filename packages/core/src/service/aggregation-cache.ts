import { LRUCache } from 'lru-cache'

export interface AggregationResult { results: unknown[] }

/**
 * Where declared aggregations' `cache.ttlSeconds` answers live. Core keeps them in this process;
 * a host with replicas passes a shared store (`@svc/surface` has one on Redis) so they agree.
 * Keys already carry the schema, aggregation, tenant, roles and params. A store that fails
 * should answer a miss (and swallow a failed set): the aggregation then simply runs.
 */
export interface AggregationCache {
  get: (key: string) => Promise<AggregationResult | undefined>
  set: (key: string, value: AggregationResult, ttlSeconds: number) => Promise<void>
}

/** The in-process default: bounded by entries and by size, so tenants × params cannot grow memory. */
export function memoryAggregationCache (opts: { max?: number, maxBytes?: number } = {}): AggregationCache {
  const lru = new LRUCache<string, AggregationResult>({
    max: opts.max ?? 10_000,
    maxSize: opts.maxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (v) => Math.max(1, JSON.stringify(v).length),
    ttlAutopurge: false
  })
  return {
    get: async (key) => lru.get(key),
    set: async (key, value, ttlSeconds) => { lru.set(key, value, { ttl: Math.max(1, Math.round(ttlSeconds * 1000)) }) }
  }
}
