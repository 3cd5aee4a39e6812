import type { UsageStore } from '@svc/core'

/** The store contract of @fastify/rate-limit (its `store` option). */
interface RateLimitStore {
  incr: (
    key: string,
    cb: (err: Error | null, res?: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number
  ) => void
  child: (routeOptions: unknown) => RateLimitStore
}

/**
 * @fastify/rate-limit counting through a `UsageStore`, the counters core's cost budgets use too:
 * one store (per process, or Redis-shared and failing open) holds every budget over time, and a
 * request that carries several (`countRequests`) adds to the same counters. `child` returns the
 * same store: every route of a bucket shares its budget.
 */
export function usageRateStore (usage: UsageStore, prefix: string): new () => RateLimitStore {
  return class UsageRateStore implements RateLimitStore {
    incr (key: string, cb: Parameters<RateLimitStore['incr']>[1], timeWindow: number): void {
      usage.add(`${prefix}${key}`, 1, timeWindow).then(
        ({ total, resetInMs }) => cb(null, { current: total, ttl: resetInMs }),
        (err: Error) => cb(err)
      )
    }

    child (): RateLimitStore {
      return this
    }
  }
}
