import { type Usage, type UsageStore } from '@svc/core'
import { memoryUsageStore } from '@svc/core/kit'
import type { Redis } from 'ioredis'

// One round trip: add, then open the window if this add started it; answer the total and what is left of the window.
const ADD = `
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { total, ttl }`

type UsageAdd = (key: string, amount: number, windowMs: number) => Promise<[number, number]>

/**
 * Fixed-window counters in Redis (rate limits per IP, tenant and e-mail; tenants' cost budgets),
 * so every replica shares one budget. When Redis does not answer, the amount is counted in a
 * per-process store instead (fail open): the service keeps serving with the per-replica budget
 * it has without Redis, until Redis is back.
 */
export function redisUsageStore (redis: Redis, opts: { prefix: string; onError: (err: unknown) => void }): UsageStore {
  const commands = redis as unknown as { svcUsageAdd?: UsageAdd }
  if (typeof commands.svcUsageAdd !== 'function') redis.defineCommand('svcUsageAdd', { numberOfKeys: 1, lua: ADD })
  const local = memoryUsageStore()
  return {
    add: async (key, amount, windowMs): Promise<Usage> => {
      try {
        const [total, ttl] = await commands.svcUsageAdd!(`${opts.prefix}${key}`, amount, windowMs)
        return { total: Number(total), resetInMs: Number(ttl) }
      } catch (err) {
        opts.onError(err)
        return await local.add(key, amount, windowMs)
      }
    }
  }
}
