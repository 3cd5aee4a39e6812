import { randomUUID } from 'node:crypto'
import { ForbiddenError, NotFoundError, ValidationError, type RequestContext } from '@svc/core'
import { buildPaging, checkEventPatterns, DEFAULT_VERSION, listEnvelope } from '@svc/core/kit'
import type { DeliveriesLog, DeliveryRow } from '../delivery/deliveries-log.js'
import { newJob, type JobStore } from '../jobs/job-store.js'
import type { UrlGuard } from '../ssrf/url-guard.js'
import { present, type Subscription, type SubscriptionStore } from './subscription-store.js'

export interface SubscriptionInput {
  events: string[]
  url: string
}
export interface SubscriptionPatch {
  events?: string[]
  url?: string
  active?: boolean
}
export interface Page<T> {
  results: T[]
  totalResults: number
  page: number
  perPage: number
  totalPages: number
  nextPage: number | null
  prevPage: number | null
}
export interface Paging {
  page?: unknown
  perPage?: unknown
}

export interface WebhooksServiceDeps {
  subscriptions: SubscriptionStore
  deliveries: DeliveriesLog
  jobs: JobStore
  guard: UrlGuard
  pageSize: number
  /** Wakes the local worker (a test event is due now). */
  nudge: () => void
}

/**
 * Subscription operations for every surface: the caller's tenant (`identity.userId`) scopes each
 * one, so an id of another tenant is 404, and URLs pass the SSRF guard before they are stored.
 */
export class WebhooksService {
  readonly #d: WebhooksServiceDeps

  constructor (deps: WebhooksServiceDeps) {
    this.#d = deps
  }

  #tenant (ctx: RequestContext): { userId: string; roles: string[] } {
    const userId = ctx.identity?.userId
    if (ctx.identity?.kind !== 'user' || typeof userId !== 'string') {
      throw new ForbiddenError('webhook subscriptions belong to a user: sign in with a bearer token')
    }
    return { userId, roles: ctx.identity.roles }
  }

  async create (ctx: RequestContext, input: SubscriptionInput): Promise<Subscription> {
    const { userId, roles } = this.#tenant(ctx)
    onlyKeys(input, ['events', 'url'])
    checkEventPatterns(input.events)
    await this.#d.guard.check(input.url)
    return present(await this.#d.subscriptions.create(userId, roles, dedupe(input.events), input.url), true)
  }

  async list (ctx: RequestContext, paging: Paging = {}): Promise<Page<Subscription>> {
    const { userId } = this.#tenant(ctx)
    const p = buildPaging(paging.page, paging.perPage, this.#d.pageSize)
    const { docs, total } = await this.#d.subscriptions.list(userId, p.skip, p.perPage)
    return listEnvelope(
      docs.map((d) => present(d)),
      total,
      p.page,
      p.perPage
    )
  }

  async get (ctx: RequestContext, id: string): Promise<Subscription> {
    const { userId } = this.#tenant(ctx)
    const doc = await this.#d.subscriptions.get(userId, id)
    if (doc === null) throw new NotFoundError(`webhook subscription ${id} not found`)
    return present(doc)
  }

  async update (ctx: RequestContext, id: string, patch: SubscriptionPatch): Promise<Subscription> {
    const { userId } = this.#tenant(ctx)
    onlyKeys(patch, ['events', 'url', 'active'])
    if (Object.keys(patch).length === 0) throw new ValidationError('nothing to change: send events, url or active')
    if (patch.events !== undefined) checkEventPatterns(patch.events)
    if (patch.url !== undefined) await this.#d.guard.check(patch.url)
    const doc = await this.#d.subscriptions.update(userId, id, {
      ...patch,
      ...(patch.events !== undefined ? { events: dedupe(patch.events) } : {})
    })
    if (doc === null) throw new NotFoundError(`webhook subscription ${id} not found`)
    return present(doc)
  }

  async remove (ctx: RequestContext, id: string): Promise<Subscription> {
    const sub = await this.get(ctx, id)
    if (!(await this.#d.subscriptions.remove(sub.userId as string, id))) {
      throw new NotFoundError(`webhook subscription ${id} not found`)
    }
    return sub
  }

  /** Queues a `webhook.test` delivery (signed, retried and logged like any other) and answers its delivery id. */
  async test (ctx: RequestContext, id: string): Promise<{ deliveryId: string }> {
    const { userId } = this.#tenant(ctx)
    await this.get(ctx, id)
    const eventId = randomUUID()
    const job = newJob(
      eventId,
      id,
      userId,
      { id: eventId, type: 'webhook.test', version: DEFAULT_VERSION, userId, subscriptionId: id },
      new Date()
    )
    await this.#d.jobs.addJobs([job])
    this.#d.nudge()
    return { deliveryId: job.deliveryId }
  }

  async deliveries (
    ctx: RequestContext,
    id: string,
    paging: Paging = {}
  ): Promise<Page<Omit<DeliveryRow, 'at'> & { at: string }>> {
    await this.get(ctx, id)
    const p = buildPaging(paging.page, paging.perPage, this.#d.pageSize)
    const { rows, total } = await this.#d.deliveries.page(id, p.skip, p.perPage)
    return listEnvelope(
      rows.map((r) => ({ ...r, at: r.at.toISOString() })),
      total,
      p.page,
      p.perPage
    )
  }
}

/** Unknown keys are refused, never dropped: a client must learn its `secret` or `active` on create was not taken. */
function onlyKeys (input: object, allowed: string[]): void {
  const extra = Object.keys(input).filter((k) => !allowed.includes(k))
  if (extra.length > 0) {
    throw new ValidationError(
      `unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (allowed: ${allowed.join(', ')})`,
      { field: extra[0] }
    )
  }
}

function dedupe (events: string[]): string[] {
  return [...new Set(events)]
}
