import type { Document } from 'mongodb'
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { AggregationModel, AggregationParam } from '../schema/aggregations.js'
import type { ResourceModel } from '../schema/model.js'
import { castScalar, toJson } from '../values/convert.js'
import { MAX_AGGREGATION_ROWS, MAX_AGGREGATION_STRING_PARAM } from '../values/limits.js'
import { AGGREGATION_PRICE } from './cost/price.js'
import type { AggregationCache, AggregationResult } from './aggregation-cache.js'
import { and, type Operation } from './tenancy.js'
import { readOptions } from './read-options.js'
import type { ReadOptions } from './types.js'
import { collectionOf } from './record-collection.js'

export type { AggregationResult }

/** What the runner needs from its resource service (structural, so the two modules do not import each other). */
export interface AggregationHost {
  readonly model: ResourceModel
  readonly maxTimeMS: number
  /** Where `cache.ttlSeconds` answers are kept (in-process by default, shared when the host says so). */
  readonly aggregationCache: AggregationCache
  scopeFilter: (ctx: RequestContext, op: Operation, options?: ReadOptions) => Document
  /** Charges a priced operation to the caller's budgets (see cost/). */
  charge: (ctx: RequestContext, cost: number) => Promise<void>
}

function invalid (param: string, message: string): never {
  throw new ValidationError(message, { field: param })
}

/** A query-string (or JSON) value cast to the param's declared type; never an object. */
function castParam (p: AggregationParam, raw: unknown): unknown {
  if (Array.isArray(raw)) invalid(p.name, `'${p.name}' is given more than once`)
  if (raw !== null && typeof raw === 'object' && !(raw instanceof Date)) {
    invalid(p.name, `'${p.name}' must be a ${p.typeName} value, not an object`)
  }
  if (p.kind === 'string' && typeof raw === 'string' && raw.length > MAX_AGGREGATION_STRING_PARAM) {
    invalid(p.name, `'${p.name}' is longer than ${MAX_AGGREGATION_STRING_PARAM} characters`)
  }
  const v = castScalar(p.kind, raw)
  if (v === undefined) invalid(p.name, `'${p.name}' must be a ${p.typeName}${p.kind === 'date' ? ' (ISO 8601)' : ''}`)
  return v
}

/**
 * Runs a schema's declared aggregations for one caller: params cast and substituted as values,
 * the caller's `userId` (and the service's scopes, so tombstones stay out) prepended as the first
 * `$match` even for `unsafe` ones, results cached per tenant and roles for `cache.ttlSeconds`.
 */
export class AggregationRunner {
  readonly #service: AggregationHost
  readonly #byName: Map<string, AggregationModel>

  constructor (service: AggregationHost) {
    this.#service = service
    this.#byName = new Map(service.model.aggregations.map((a) => [a.name, a]))
  }

  async run (ctx: RequestContext, name: string, raw: Record<string, unknown> = {}): Promise<AggregationResult> {
    const a = this.#byName.get(name)
    if (a === undefined) throw new NotFoundError(`no aggregation '${name}' on ${this.#service.model.path}`)
    const identity = ctx.identity
    if (identity == null) throw new UnauthenticatedError()
    if (identity.kind !== 'user' || typeof identity.userId !== 'string' || identity.userId === '') {
      throw new ForbiddenError('aggregations need a signed-in user')
    }
    if (a.unsafe && !identity.roles.some((r) => this.#service.model.acl.list.includes(r))) {
      throw new ForbiddenError(`aggregation '${name}' is restricted to roles in acl.list`)
    }
    const values = this.#params(a, raw)
    await this.#service.charge(ctx, AGGREGATION_PRICE)
    const cache = a.ttlSeconds === undefined ? undefined : this.#service.aggregationCache
    // Roles too: a cached answer must never reach a caller whose roles could see it differently.
    // The generation changes with every write to the schema by this tenant (see AggregationCache).
    const generation =
      cache?.generation === undefined
        ? ''
        : await cache.generation(this.#service.model.key, identity.userId).catch(() => null)
    const usable = cache !== undefined && generation !== null ? cache : undefined
    const key = `${this.#service.model.key}/${a.name}@${generation ?? ''}:${JSON.stringify([identity.userId, [...identity.roles].sort(), [...values.entries()].sort(([x], [y]) => (x < y ? -1 : 1))])}`
    // A failing store is a miss (and a failed set is ignored): the cache never fails the request.
    const hit = await usable?.get(key).catch(() => undefined)
    if (hit !== undefined) return hit
    const tenant = and({ userId: identity.userId }, this.#service.scopeFilter(ctx, 'get', { includeDeleted: false }))
    const pipeline: Document[] = [{ $match: tenant }]
    const matches = a.params.filter((p) => values.has(p.name)).map((p) => p.match(values.get(p.name)))
    if (matches.length > 0) pipeline.push({ $match: and(...matches) })
    pipeline.push(...a.pipeline, { $limit: MAX_AGGREGATION_ROWS + 1 })
    const rows = await collectionOf(this.#service).aggregate(pipeline, readOptions(this.#service, ctx)).toArray()
    if (rows.length > MAX_AGGREGATION_ROWS) {
      throw new Error(`aggregation ${this.#service.model.path}/${name} returned more than ${MAX_AGGREGATION_ROWS} rows`)
    }
    const result = { results: rows.map((r) => toJson(r)) }
    if (usable !== undefined && a.ttlSeconds !== undefined) await usable.set(key, result, a.ttlSeconds).catch(() => {})
    return result
  }

  #params (a: AggregationModel, raw: Record<string, unknown>): Map<string, unknown> {
    const declared = new Map(a.params.map((p) => [p.name, p]))
    for (const k of Object.keys(raw)) {
      if (!declared.has(k)) {
        invalid(
          k,
          `unknown param '${k}' for aggregation '${a.name}'${a.params.length > 0 ? ` (params: ${a.params.map((p) => p.name).join(', ')})` : ' (it takes none)'}`
        )
      }
    }
    const out = new Map<string, unknown>()
    for (const p of a.params) {
      const v = raw[p.name]
      if (v === undefined || v === '') {
        if (p.required) invalid(p.name, `'${p.name}' is required`)
        continue
      }
      const cast = castParam(p, v)
      try {
        p.match(cast)
      } catch (err) {
        invalid(p.name, (err as Error).message)
      }
      out.set(p.name, cast)
    }
    return out
  }
}
