import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'

/** The store contract of @fastify/rate-limit (its `store` option). */
export interface RateLimitStore {
  incr: (key: string, cb: (err: Error | null, res?: { current: number, ttl: number }) => void, timeWindow: number, max: number) => void
  child: (routeOptions: unknown) => RateLimitStore
}

type StoreCtor<A extends unknown[]> = new (...args: A) => RateLimitStore

// The plugin's own stores (its Lua script and LRU), reused rather than copied; it ships no types for them.
const require = createRequire(import.meta.url)
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreCtor<[boolean, boolean, number]>
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreCtor<[boolean, boolean, Redis, string]>

/** Per-process counters; `child` returns the same store so every route of a bucket shares one budget. */
export function localStore (): new () => RateLimitStore {
  const local = new LocalStore(false, false, 5000)
  return class SharedLocalStore implements RateLimitStore {
    incr (...args: Parameters<RateLimitStore['incr']>): void {
      local.incr(...args)
    }

    child (): RateLimitStore {
      return this
    }
  }
}

export interface FailOpenOptions {
  redis: Redis
  /** Key prefix in Redis. */
  nameSpace: string
  /** Called on every failed Redis call (the caller throttles its log and counts it). */
  onError: (err: unknown) => void
}

/**
 * Counters in Redis, so replicas share one budget. When Redis does not answer, the request is
 * counted in a per-process store instead of failing: the service keeps serving (fail open), with
 * the per-replica limit it has without `REDIS_URL`, until Redis is back.
 */
export function failOpenStore (opts: FailOpenOptions): new () => RateLimitStore {
  const shared = new RedisStore(false, false, opts.redis, opts.nameSpace)
  const local = new LocalStore(false, false, 5000)
  return class FailOpenStore implements RateLimitStore {
    incr (key: string, cb: Parameters<RateLimitStore['incr']>[1], timeWindow: number, max: number): void {
      shared.incr(key, (err, res) => {
        if (err == null) return cb(null, res)
        opts.onError(err)
        local.incr(key, cb, timeWindow, max)
      }, timeWindow, max)
    }

    // Per-route limits are not used: every limited route shares its bucket's budget.
    child (): RateLimitStore {
      return this
    }
  }
}
