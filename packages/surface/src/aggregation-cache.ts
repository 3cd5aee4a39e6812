import { createHash } from 'node:crypto'
import type { AggregationCache, AggregationResult } from '@svc/core'
import type { Redis } from 'ioredis'

/**
 * Declared aggregations' cached answers in Redis, so every replica serves the same answer for a
 * TTL instead of one each, and a write on any replica retires the answers it changes (shared
 * generations). Keys are hashed (a key names tenant, roles and params: unbounded text). A failed
 * call is reported and answers a miss: the aggregation then runs (fail open).
 */
export function redisAggregationCache (
  redis: Redis,
  opts: { prefix: string; onError: (err: unknown) => void }
): AggregationCache {
  const keyOf = (key: string): string => `${opts.prefix}${createHash('sha256').update(key).digest('base64url')}`
  // Generations: one counter per schema and one per schema and tenant, never expiring (a few
  // bytes each); INCR on a write, MGET before an aggregation (see AggregationCache in core).
  const genKey = (scope: string, userId?: string): string =>
    `${opts.prefix}gen:${scope}${userId === undefined ? '' : `:${userId}`}`
  return {
    generation: async (scope, userId) => {
      try {
        const [all, tenant] = await redis.mget(genKey(scope), genKey(scope, userId))
        return `${all ?? 0}.${tenant ?? 0}`
      } catch (err) {
        opts.onError(err)
        throw err
      }
    },
    invalidate: async (scope, userId) => {
      try {
        await redis.incr(genKey(scope, userId ?? undefined))
      } catch (err) {
        opts.onError(err)
        throw err
      }
    },
    get: async (key) => {
      try {
        const raw = await redis.get(keyOf(key))
        return raw === null ? undefined : (JSON.parse(raw) as AggregationResult)
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
