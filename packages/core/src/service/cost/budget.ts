import { RateLimitedError, ValidationError } from '../../errors.js'
import type { RequestContext } from '../../identity.js'
import type { UsageStore } from './usage-store.js'

export interface CostLimits {
  /** Largest price one request (a REST call, an MCP call, a GraphQL document) may have. */
  maxRequestCost: number
  /** Price one tenant may be charged per minute; null: no budget over time. */
  tenantCostPerMinute: number | null
  store: UsageStore
}

const MINUTE = 60_000

/** Whom a budget over time belongs to: the tenant (user), the api client, else the client IP. */
export function tenantKey (ctx: RequestContext): string | null {
  const id = ctx.identity
  if (id?.kind === 'user' && id.userId !== null) return `u:${id.userId}`
  if (id?.kind === 'client' && id.clientId !== undefined) return `c:${id.clientId}`
  const ip = ctx.req?.ip
  return typeof ip === 'string' ? `ip:${ip}` : null
}

/**
 * Charges priced operations: over the per-request limit is 400 VALIDATION (`cost`, `limit`)
 * before anything runs; past the tenant's budget for the minute is 429 RATE_LIMITED with
 * `retryAfterSeconds`. Trusted calls (`system`) and requests a surface priced as a whole
 * (`priced`, GraphQL documents) are not charged again operation by operation.
 */
export class CostBudget {
  readonly limits: CostLimits

  constructor (limits: CostLimits) {
    this.limits = limits
  }

  /** 400 when `cost` is over the per-request limit (nothing charged). */
  check (cost: number): void {
    const limit = this.limits.maxRequestCost
    if (cost > limit) {
      throw new ValidationError(
        `request cost ${cost} exceeds the limit of ${limit}: ask for fewer records (a smaller page or limit), fewer relations or fewer fields`,
        { cost, limit }
      )
    }
  }

  /** Checks `cost`, then charges it to the caller's budget over time (the whole request's price). */
  async chargeRequest (ctx: RequestContext, cost: number): Promise<void> {
    this.check(cost)
    const perMinute = this.limits.tenantCostPerMinute
    const key = tenantKey(ctx)
    if (perMinute === null || key === null || cost <= 0) return
    const { total, resetInMs } = await this.limits.store.add(`cost:${key}`, cost, MINUTE)
    if (total > perMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil(resetInMs / 1000))
      throw new RateLimitedError(`cost budget of ${perMinute} per minute used up: retry in ${retryAfterSeconds} s`, {
        cost,
        limit: perMinute,
        retryAfterSeconds
      })
    }
  }

  /** One service operation's price, unless the request is trusted or was priced whole. */
  async charge (ctx: RequestContext, cost: number): Promise<void> {
    if (ctx.system === true || ctx.priced === true) return
    await this.chargeRequest(ctx, cost)
  }
}
