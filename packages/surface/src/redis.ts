import type { Redis } from 'ioredis'

/**
 * One ioredis client for everything the surface shares between replicas (rate-limit counters,
 * aggregation caches). Tuned to fail fast: with no connection a command errors at once instead of
 * queueing, and a hung server costs a request at most `commandTimeout`, so callers can fail open.
 * ioredis is loaded here, on first use: a service without Redis never pays its load at start-up.
 */
export async function connectRedis (url: string, opts: { commandTimeoutMs?: number } = {}): Promise<Redis> {
  const { Redis } = await import('ioredis')
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: opts.commandTimeoutMs ?? 250,
    // Keep trying in the background (capped back-off) so counters are shared again once Redis is back.
    retryStrategy: (times) => Math.min(times * 200, 5000)
  })
}
