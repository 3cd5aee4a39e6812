import { LRUCache } from 'lru-cache'

/** A counter's state after an `add`: the window's total so far and when the window ends. */
export interface Usage {
  total: number
  resetInMs: number
}

/**
 * Fixed-window counters shared by every budget over time: request rate limits (per IP, tenant,
 * e-mail) and tenants' cost budgets. Core keeps them in this process; replicas share them
 * through a shared store (`@svc/surface` has one on Redis), the way `aggregationCache` is shared.
 * A store that fails should count locally rather than refuse (fail open).
 */
export interface UsageStore {
  /** Adds `amount` to `key` in its current window (opening one of `windowMs` if none is open). */
  add: (key: string, amount: number, windowMs: number) => Promise<Usage>
}

interface Window {
  total: number
  endsAt: number
}

/**
 * The in-process store: bounded by keys (least recently used go first), so a flood of distinct
 * IPs or e-mails cannot grow memory; an evicted key simply starts a new window.
 */
export function memoryUsageStore (
  opts: { maxKeys?: number } = {}
): UsageStore & { addSync: (key: string, amount: number, windowMs: number) => Usage } {
  const windows = new LRUCache<string, Window>({ max: opts.maxKeys ?? 100_000 })
  const addSync = (key: string, amount: number, windowMs: number): Usage => {
    const now = Date.now()
    let w = windows.get(key)
    if (w === undefined || w.endsAt <= now) {
      w = { total: 0, endsAt: now + windowMs }
      windows.set(key, w)
    }
    w.total += amount
    return { total: w.total, resetInMs: w.endsAt - now }
  }
  return { addSync, add: async (key, amount, windowMs) => addSync(key, amount, windowMs) }
}
