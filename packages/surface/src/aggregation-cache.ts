import { createHash } from 'node:crypto'
import type { AggregationCache, AggregationResult } from '@svc/core'
import type { Redis } from 'ioredis'

/**
 * Declared aggregations' cached answers in Redis, so every replica serves the same answer for a
 * TTL instead of one each. Keys are hashed (a key names tenant, roles and params: unbounded
 * text). A failed call is reported and answers a miss: the aggregation then runs (fail open).
 */
export function redisAggregationCache (redis: Redis, opts: { prefix: string, onError: (err: unknown) => void }): AggregationCache {
  const keyOf = (key: string): string => `${opts.prefix}${createHash('sha256').update(key).digest('base64url')}`
  return {
    get: async (key) => {
      try {
        const raw = await redis.get(keyOf(key))
        return raw === null ? undefined : JSON.parse(raw) as AggregationResult
      } catch (err) {
        opts.onError(err)
        return undefined
      }
    },
    set: async (key, value, ttlSeconds) => {
      try {
        await redis.set(keyOf(key), JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlSeconds * 1000)))
      } catch (err) {
        opts.onError(err)
      }
    }
  }
}
