import type { Collection, Document, IndexSpecification, ObjectId } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { parseId, toJson } from '../values/convert.js'
import { MAX_PAGE_SIZE } from '../values/limits.js'
import { recordsEnvelope } from './list-envelope.js'
import { ListCursors, queryShape } from './list-cursor.js'
import type { RecordEvents } from './events.js'
import { buildFilter, buildPaging, buildSort } from './filter.js'
import { prepareInput, type PreparedInput } from './input.js'
import { upsertSeed } from './bulk-upsert.js'
import { readableFields, screenQuery, screenWrite } from './acl.js'
import { legalSeed, refuseBulkState, stampInitial } from './state-machine.js'
import {
  createRecord,
  deleteRecord,
  newWriteId,
  patchRecord,
  transitionRecord,
  updateRecord,
  type WriteHost
} from './write-path.js'
import { createRecords, deleteMatching } from './bulk-writes.js'
import { presentRecord } from './present.js'
import { eventAudience, type EventAudience } from './event-audience.js'
import { planBulkUpdate } from './bulk-update.js'
import { commitDurably, type DurableContext } from './durable/commit.js'
import type { IntentStore } from './durable/intents.js'
import type { DurableEffect, NamedEffect } from './durable/types.js'
import { runPurgeHooks, type PurgeHook } from './purge.js'
import { checkFileWrite, readFileField, writeFileField } from './file-field.js'
import { and, compileClientScopes, stamp, tenantFilter, type Operation } from './tenancy.js'
import { RelationLoader } from './relations.js'
import { AggregationRunner } from './aggregations.js'
import { memoryAggregationCache, type AggregationCache } from './aggregation-cache.js'
import { searchSort, textClause } from './search.js'
import { readOptions } from './read-options.js'
import type { CostBudget } from './cost/budget.js'
import { BULK_WRITE_PRICE, readPrice, recordValues } from './cost/price.js'
import { checkIdempotencyKey, type IdempotencyKeys, type IdempotentResult } from './idempotency.js'
import { StoredRecords } from './stored-records.js'
import { migrateBatch, type MigrateBatchOptions, type MigrateBatchResult } from './migrate-batch.js'
import { settleMigrationWrites } from './migrate-judge.js'
import { keepCollection } from './record-collection.js'
import { ensurePluginIndex, fileKeysOf, fileNamingKey, purgeDeletedBefore, type PluginOpsHost } from './plugin-ops.js'
import type {
  DeleteStrategy,
  ListQuery,
  ListResult,
  ReadOptions,
  RecordJson,
  Scope,
  TombstoneUpdate,
  WriteResult,
  WriteSubscriber
} from './types.js'

const hardDelete: DeleteStrategy = () => null

function ownerOf (result: WriteResult): string | undefined {
  const owner = result.after?.userId ?? result.before?.userId
  return typeof owner === 'string' ? owner : undefined
}

export interface ResourceServiceDeps {
  collection: Collection
  events: RecordEvents
  log: FastifyBaseLogger
  pageSize: number
  /** `maxTimeMS` of every query a caller drives (core option `queryTimeoutMs`). */
  queryTimeoutMs: number
  /** Another schema's service of the same version (relation targets). */
  lookup?: (path: string) => ResourceService
  /** The shared `idempotency_keys` store (create with an Idempotency-Key). */
  idempotency?: IdempotencyKeys
  /** Declared aggregations' cache; default in-process. */
  aggregationCache?: AggregationCache
  /** The shared write-intent store of durable effects (see durable/). */
  intents: IntentStore
  /** How long a writer owns its write intents before a reconciler may settle them. */
  intentLeaseMs: number
  /** Commit durable writes in transactions instead of write-ahead intents (core option `transactions`). */
  transactions: boolean
  /** Prices and budgets (see cost/): every operation a caller drives is charged before it runs. */
  cost: CostBudget
  /** The list cursors' HMAC key (derived from the JWT secret); default a random key of this process. */
  cursorKey?: () => Buffer
}

/**
 * The only code that reads or writes records of one schema. Every surface (REST, GraphQL, MCP,
 * agent) calls it with a RequestContext, so tenancy, validation and events hold everywhere.
 */
export class ResourceService {
  readonly model: ResourceModel
  /** Never handed out: plugins get named operations (see plugin-ops.ts), so no rule is bypassed. */
  readonly #collection: Collection
  /**
   * The time bound of every query a caller drives; past it the database stops the query and the
   * caller gets 503 QUERY_TIMEOUT. Plugins that add reads (restore, history) pass it too.
   */
  readonly maxTimeMS: number
  readonly aggregationCache: AggregationCache
  /** Prices and budgets every surface is charged by (see cost/). */
  readonly cost: CostBudget
  readonly #deps: ResourceServiceDeps
  readonly #scopes: Scope[] = []
  readonly #subscribers: WriteSubscriber[] = []
  readonly #cachesAggregations: boolean
  readonly #effects: NamedEffect[] = []
  readonly #durable: DurableContext
  readonly #clientScopes: Map<string, Document>
  readonly #cursors: ListCursors
  #deleteStrategy: DeleteStrategy = hardDelete
  /** The write path's and plugin operations' view of this service, built once (see write-path.ts). */
  readonly #host: WriteHost
  readonly #ops: PluginOpsHost
  /** `__include`: one query per relation for a page, tenant and target scopes re-applied. */
  readonly relations: RelationLoader
  /** Declared aggregations: `aggregations.run(ctx, name, params)` for every surface. */
  readonly aggregations: AggregationRunner
  /** Operator reads of the stored records for `svc schema plan` (see stored-records.ts). */
  readonly stored: StoredRecords

  constructor (model: ResourceModel, deps: ResourceServiceDeps) {
    this.model = model
    this.#collection = deps.collection
    keepCollection(this, deps.collection)
    this.maxTimeMS = deps.queryTimeoutMs
    this.aggregationCache = deps.aggregationCache ?? memoryAggregationCache()
    this.#cachesAggregations = model.aggregations.some((a) => a.ttlSeconds !== undefined)
    this.cost = deps.cost
    this.#deps = deps
    this.#clientScopes = compileClientScopes(model)
    this.#cursors = new ListCursors(deps.cursorKey)
    this.relations = new RelationLoader(
      model,
      deps.lookup ??
        ((p) => {
          throw new Error(`@svc/core: no service lookup for relation target '${p}'`)
        })
    )
    this.aggregations = new AggregationRunner(this)
    this.stored = new StoredRecords(deps.collection)
    this.#durable = {
      db: deps.collection.db,
      store: deps.intents,
      effects: this.#effects,
      leaseMs: deps.intentLeaseMs,
      log: deps.log,
      transactions: deps.transactions
    }
    this.#host = {
      model,
      collection: deps.collection,
      maxTimeMS: this.maxTimeMS,
      deleteStrategy: (args) => this.#deleteStrategy(args),
      log: (ctx) => this.#log(ctx),
      scopeFilter: (c, op) => this.scopeFilter(c, op),
      accept: (c, input, mode) => this.accept(c, input, mode),
      present: (c, doc) => this.present(c, doc),
      publish: async (result) => await this.publish(result),
      purged: async (docs, ctx) => await this.purged(docs, ctx),
      commit: async (plan, taken) => await commitDurably(this.#durable, plan, taken)
    }
    this.#ops = {
      model,
      collection: deps.collection,
      maxTimeMS: this.maxTimeMS,
      scopeFilter: this.#host.scopeFilter,
      purged: this.#host.purged
    }
  }

  /**
   * Extension point 5 — documents a write must leave behind (audit rows, the event log):
   * `build(result)` answers `[{ collection, document }]` (each with an `_id`) for every write of
   * this service, and core makes them exist iff the write committed (see durable/commit.ts).
   * `migrations: true`: also for the records `svc schema apply` migrates (audit rows; an event
   * outbox leaves it off, as migrations publish no event).
   */
  addDurableEffect (name: string, build: DurableEffect, opts: { migrations?: boolean } = {}): void {
    if (this.#effects.some((e) => e.name === name)) {
      throw new Error(`@svc/core: durable effect '${name}' is already registered on ${this.model.key}`)
    }
    this.#effects.push({ name, build, ...(opts.migrations === true ? { migrations: true } : {}) })
  }

  /**
   * `svc schema apply`: one batch of one tenant's records through the pending migrations (see
   * migrate-batch.ts). Operators only (`system: true`); no hooks, no events, no write subscribers;
   * the durable effects registered with `migrations: true` (audit rows) and per-record markers.
   */
  async migrateBatch (ctx: RequestContext, opts: MigrateBatchOptions): Promise<MigrateBatchResult> {
    if (ctx.system !== true) throw new ForbiddenError('migrations are run by operators (svc schema apply)')
    const durable = { ...this.#durable, effects: this.#effects.filter((e) => e.migrations === true) }
    return await migrateBatch(
      { model: this.model, collection: this.#collection, stored: this.stored, durable },
      ctx,
      opts
    )
  }

  /** Before `svc schema apply` (holding its lock): settles the writes a killed run left in flight. */
  async settleMigrationWrites (ctx: RequestContext): Promise<number> {
    if (ctx.system !== true) throw new ForbiddenError('migrations are run by operators (svc schema apply)')
    return await settleMigrationWrites(this.#durable, this.#collection.collectionName)
  }

  addScope (scope: Scope): void {
    this.#scopes.push(scope)
  }

  setDeleteStrategy (strategy: DeleteStrategy): void {
    this.#deleteStrategy = strategy
  }

  onWrite (subscriber: WriteSubscriber): void {
    this.#subscribers.push(subscriber)
  }

  /** Hooks run after records are purged for good (extension point 4, see purge.ts). */
  readonly #purgeHooks: PurgeHook[] = []
  onPurge (hook: PurgeHook): void {
    this.#purgeHooks.push(hook)
  }

  /** Hands documents removed for good (hard delete, retention sweep) to the purge hooks; never throws. */
  async purged (docs: Document[], ctx?: RequestContext): Promise<void> {
    await runPurgeHooks(this.#purgeHooks, this.model, docs, ctx === undefined ? this.#deps.log : this.#log(ctx))
  }

  #bulkRecords = false
  /** Bulk writes then report per-record before/after images (`WriteResult.records`), at the cost of a pre-read. */
  wantBulkRecords (): void {
    this.#bulkRecords = true
  }

  /**
   * The one inbound seam for every operation and surface: field-ACL write slots and computed
   * names are screened, then validation (unknown keys refused), defaults and BSON conversion.
   */
  accept (ctx: RequestContext, input: unknown, mode: 'create' | 'update'): PreparedInput {
    screenWrite(this.model, ctx, input, mode)
    return prepareInput(this.model, input, mode, { strict: true })
  }

  /** Field-ACL, computed and file-field screening of a raw body, for surfaces that validate before the service does. */
  screenWrite (ctx: RequestContext, input: unknown, mode: 'create' | 'update'): void {
    screenWrite(this.model, ctx, input, mode)
  }

  /**
   * The one outbound seam (see present.ts): BSON → JSON, computed fields, `availableTransitions`,
   * field-ACL read projection. Relations and audit call it too, so no read path can skip it.
   */
  present (ctx: RequestContext, doc: Document): RecordJson {
    return presentRecord(this.model, ctx, doc, this.#log(ctx))
  }

  /** Stored records presented (the caller's readable fields worked out once), with the related records of `includes`. */
  async #presentAll (ctx: RequestContext, docs: Document[], includes: string[]): Promise<RecordJson[]> {
    const related = includes.length === 0 ? [] : await this.relations.populate(ctx, docs, includes)
    const log = this.#log(ctx)
    const readable = this.readableFields(ctx)
    return docs.map((d, i) => {
      const record = presentRecord(this.model, ctx, d, log, readable)
      return includes.length === 0 ? record : { ...record, ...related[i] }
    })
  }

  /** Top-level fields the caller may read (system fields included); null when none is hidden. */
  readableFields (ctx: RequestContext): Set<string> | null {
    return readableFields(this.model, ctx)
  }

  /**
   * Who the caller is as an audience of this schema's record events (a live feed): its list rule
   * as an in-memory test and its readable fields (see event-audience.ts); null when the schema
   * is closed to it (an api client without a scope).
   */
  eventAudience (ctx: RequestContext): EventAudience | null {
    return eventAudience(this.model, ctx, this.#clientScopes)
  }

  /**
   * Charges a priced operation to the caller's budgets before it runs: 400 over the per-request
   * limit, 429 past the tenant's budget for the minute. Plugins adding reads (history) call it too.
   */
  async charge (ctx: RequestContext, cost: number): Promise<void> {
    await this.cost.charge(ctx, cost)
  }

  /** An operation answering (or writing) `records` whole records. */
  async #chargeRecords (ctx: RequestContext, records: number): Promise<void> {
    await this.charge(ctx, records * recordValues(this.model))
  }

  /** What reading `records` records with the relations `includes` populated can return. */
  priceRead (records: number, includes: string[] = []): number {
    return readPrice(this.model, records, this.relations.targets(includes))
  }

  #log (ctx: RequestContext): FastifyBaseLogger {
    return ctx.log ?? ctx.req?.log ?? this.#deps.log
  }

  /** Tenant filter + every scope for one operation. Exposed for plugins that add operations (restore). */
  scopeFilter (ctx: RequestContext, op: Operation, options: ReadOptions = {}): Document {
    const base = tenantFilter(this.model, ctx, op, this.#clientScopes)
    if (this.#scopes.length === 0) return base
    return and(base, ...this.#scopes.map((s) => s({ ctx, op, options, model: this.model })))
  }

  async list (ctx: RequestContext, query: ListQuery = {}): Promise<ListResult> {
    return await this.findPage(ctx, query, this.scopeFilter(ctx, 'list', query))
  }

  /**
   * One page of the caller's query inside `scoped`, a filter that already holds the tenant and
   * every scope (list passes its own; a relation list passes the relation's target filter).
   */
  async findPage (ctx: RequestContext, query: ListQuery, scoped: Document): Promise<ListResult> {
    const { filter, sort, includes } = this.#plan(ctx, query, scoped)
    const paging = buildPaging(query.page, query.perPage, this.#deps.pageSize)
    const { perPage } = paging
    if (query.count !== undefined && typeof query.count !== 'boolean') {
      throw new ValidationError('__count must be true or false', { field: '__count' })
    }
    const order = sort as Document // buildSort and searchSort answer plain objects
    const shape = queryShape(this.model, filter, order, perPage)
    let { page, skip } = paging
    let where = filter
    if (query.cursor !== undefined) {
      if (query.page !== undefined) {
        throw new ValidationError('__cursor continues a walk: it does not combine with __page', { field: '__cursor' })
      }
      const at = this.#cursors.read(this.model, shape, order, query.cursor)
      page = at.page
      skip = at.skip ?? 0
      if (at.after !== undefined) where = and(filter, at.after)
    }
    await this.charge(ctx, this.priceRead(perPage, includes))
    const read = readOptions(this, ctx)
    // One record past the page tells whether another page exists, without counting.
    const [docs, totalResults] = await Promise.all([
      this.#collection.find(where, { sort, skip, limit: perPage + 1, batchSize: perPage + 1, ...read }).toArray(),
      query.count === false ? null : this.#collection.countDocuments(filter, read)
    ])
    const more = docs.length > perPage
    if (more) docs.length = perPage
    const nextCursor = more
      ? this.#cursors.issue(this.model, shape, order, docs[perPage - 1], page + 1, skip + perPage)
      : null
    return recordsEnvelope(await this.#presentAll(ctx, docs, includes), totalResults, page, perPage, more, nextCursor)
  }

  /**
   * The list's records by offset (`skip`, `limit` up to MAX_PAGE_SIZE) and without a count: GraphQL
   * `<path>Many` and `<path>Search` answer a plain array, so they never pay for `countDocuments`.
   */
  async findMany (
    ctx: RequestContext,
    query: ListQuery & { skip?: number; limit?: number } = {}
  ): Promise<RecordJson[]> {
    const { filter, sort, includes } = this.#plan(ctx, query, this.scopeFilter(ctx, 'list', query))
    const limit = query.limit ?? this.#deps.pageSize
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new ValidationError(`limit must be an integer between 1 and ${MAX_PAGE_SIZE}`, { field: 'limit' })
    }
    const skip = query.skip ?? 0
    if (!Number.isInteger(skip) || skip < 0 || skip > 1e9) {
      throw new ValidationError('skip must be an integer between 0 and 1e9', { field: 'skip' })
    }
    await this.charge(ctx, this.priceRead(limit, includes))
    const docs = await this.#collection
      .find(filter, { sort, skip, limit, batchSize: limit, ...readOptions(this, ctx) })
      .toArray()
    return await this.#presentAll(ctx, docs, includes)
  }

  /** Filter, sort and includes of a list query inside `scoped`, after the caller's ACL screened them. */
  #plan (
    ctx: RequestContext,
    query: ListQuery,
    scoped: Document
  ): { filter: Document; sort: ReturnType<typeof searchSort>; includes: string[] } {
    screenQuery(this.model, ctx, query.filter, query.sort)
    const includes = this.relations.parse(query.include)
    const text = textClause(this.model, query.q, this.readableFields(ctx))
    const base = and(buildFilter(this.model, query.filter), scoped)
    // `$text` stays top level (MongoDB refuses it under $or/$nor; devdb under $and too).
    const filter = text === undefined ? base : { $text: text, ...base }
    return { filter, sort: searchSort(this.model, query.sort, text !== undefined), includes }
  }

  async get (ctx: RequestContext, id: string, options: ReadOptions = {}): Promise<RecordJson> {
    const scoped = this.scopeFilter(ctx, 'get', options)
    const includes = this.relations.parse(options.include)
    const _id = parseId(id)
    if (_id == null) throw new NotFoundError(`${this.model.path} not found`)
    await this.charge(ctx, this.priceRead(1, includes))
    const doc = await this.#collection.findOne(and({ _id }, scoped), readOptions(this, ctx))
    if (doc == null) throw new NotFoundError(`${this.model.path} not found`)
    return (await this.#presentAll(ctx, [doc], includes))[0]
  }

  /**
   * A `hasMany` (or `hasOne`) relation of one readable record as a paged, filtered, sorted list
   * of the target (MCP `list_<path>_<rel>`): the relation's rules (the caller's own tenant on the
   * target, tombstones hidden, the target's field ACL) plus the target's list rules.
   */
  async listRelated (ctx: RequestContext, id: string, relation: string, query: ListQuery = {}): Promise<ListResult> {
    this.relations.parse(relation) // an unknown relation is 400 whatever the id
    const parent = await this.get(ctx, id)
    return await this.relations.list(ctx, parent._id, relation, query)
  }

  async create (ctx: RequestContext, input: unknown, opts: { idempotencyKey?: string } = {}): Promise<RecordJson> {
    await this.#chargeRecords(ctx, 1)
    if (opts.idempotencyKey !== undefined) return (await this.createOnce(ctx, input, opts.idempotencyKey)).record
    return await createRecord(this.#host, ctx, input)
  }

  /**
   * Create under an Idempotency-Key (per tenant, 24 h): a replay with the same body answers the
   * first record (`replayed: true`) and creates nothing; another body is 409 CONFLICT.
   */
  async createOnce (ctx: RequestContext, input: unknown, key: string): Promise<IdempotentResult> {
    const { userId } = stamp(ctx)
    const store = this.#deps.idempotency
    if (store === undefined) throw new Error('@svc/core: this service has no idempotency store')
    return await store.run({
      userId,
      path: this.model.key,
      key: checkIdempotencyKey(key),
      body: input,
      create: async (_id) => await createRecord(this.#host, ctx, input, { _id }),
      find: async (_id) => {
        const doc = await this.#collection.findOne(and({ _id }, this.scopeFilter(ctx, 'get')), {
          maxTimeMS: this.maxTimeMS
        })
        return doc == null ? null : this.present(ctx, doc)
      }
    })
  }

  async updateById (ctx: RequestContext, id: string, patch: unknown): Promise<RecordJson> {
    await this.#chargeRecords(ctx, 1)
    return await updateRecord(this.#host, ctx, id, patch)
  }

  /** Several creates at once without hooks (GraphQL `<path>CreateMany`); all validated before any is inserted. */
  async createMany (ctx: RequestContext, inputs: unknown[]): Promise<RecordJson[]> {
    await this.#chargeRecords(ctx, Array.isArray(inputs) ? Math.min(inputs.length, BULK_WRITE_PRICE) : 1)
    return await createRecords(this.#host, ctx, inputs)
  }

  /**
   * Updates the first record of the caller matching `filter` (in `sort` order, after `skip`)
   * without hooks (GraphQL `<path>UpdateOne`); state fields still move only along their table.
   */
  async updateOne (
    ctx: RequestContext,
    query: { filter?: Record<string, unknown>; sort?: string | string[]; skip?: number },
    patch: unknown
  ): Promise<RecordJson> {
    const scoped = this.scopeFilter(ctx, 'update')
    screenQuery(this.model, ctx, query.filter, query.sort)
    await this.#chargeRecords(ctx, 1)
    const skip = query.skip ?? 0
    if (!Number.isInteger(skip) || skip < 0 || skip > 1e9) {
      throw new ValidationError('skip must be an integer between 0 and 1e9', { field: 'skip' })
    }
    const first = await this.#collection.findOne(and(buildFilter(this.model, query.filter), scoped), {
      sort: buildSort(this.model, query.sort),
      skip,
      projection: { _id: 1 },
      maxTimeMS: this.maxTimeMS
    })
    if (first == null) throw new NotFoundError(`no ${this.model.path} record matches the filter`)
    return await updateRecord(this.#host, ctx, String(first._id), patch, { hooks: false })
  }

  /** Deletes every record of the caller matching `filter` without hooks (GraphQL `<path>RemoveMany`); one bulk event. */
  async deleteMany (ctx: RequestContext, filter: Record<string, unknown>): Promise<{ numAffected: number }> {
    await this.charge(ctx, BULK_WRITE_PRICE)
    return await deleteMatching(this.#host, ctx, filter)
  }

  /** Moves one state field (GraphQL `<path>Transition<Field>`, MCP): fires `onEnter` only, no update hooks. */
  async transition (ctx: RequestContext, id: string, field: string, to: unknown): Promise<RecordJson> {
    await this.#chargeRecords(ctx, 1)
    return await transitionRecord(this.#host, ctx, id, field, to)
  }

  async deleteById (ctx: RequestContext, id: string): Promise<RecordJson> {
    await this.#chargeRecords(ctx, 1)
    return await deleteRecord(this.#host, ctx, id)
  }

  /**
   * A write operation of a plugin (soft delete's restore): top-level `$set`/`$unset` on the one
   * record matching `filter` (which must already hold the tenant and scopes, see scopeFilter),
   * no hooks, `updatedAt` stamped, published as `updated` with `operation`, durable effects
   * included. Answers the stored images, or null when nothing matched.
   */
  async updateWhere (
    ctx: RequestContext,
    filter: Document,
    change: TombstoneUpdate,
    opts: { operation?: string } = {}
  ): Promise<{ before: Document; after: Document } | null> {
    await this.#chargeRecords(ctx, 1)
    return await patchRecord(this.#host, ctx, filter, change, opts)
  }

  /**
   * File fields (`@svc/files`, see file-field.ts): no hooks, update ACL and scopes, audit and
   * `<path>.updated` through publish. `readFile` answers the stored FileMeta or null (403 when
   * the field is unreadable); `checkFileWrite` runs every check of `setFile` before an upload
   * streams; `setFile` stores or clears the metadata and answers what it replaced.
   */
  async readFile (ctx: RequestContext, id: string, field: string): Promise<Document | null> {
    await this.#chargeRecords(ctx, 1)
    return await readFileField(this.#host, ctx, id, field)
  }

  async checkFileWrite (ctx: RequestContext, id: string, field: string): Promise<{ userId: string }> {
    return await checkFileWrite(this.#host, ctx, id, field)
  }

  async setFile (
    ctx: RequestContext,
    id: string,
    field: string,
    value: Document | null
  ): Promise<{ previous: Document | null; record: RecordJson }> {
    await this.#chargeRecords(ctx, 1)
    return await writeFileField(this.#host, ctx, id, field, value)
  }

  /**
   * Trusted plugin operations (`system: true` only, see plugin-ops.ts): soft delete's retention
   * sweep and its index, the blob route's and the files reconciler's lookups by blob key.
   */
  async purgeDeletedBefore (ctx: RequestContext, cutoff: Date, opts: { batchSize: number }): Promise<number> {
    return await purgeDeletedBefore(this.#ops, ctx, cutoff, opts.batchSize)
  }

  async ensureIndex (
    ctx: RequestContext,
    keys: IndexSpecification,
    options: { name: string; sparse?: boolean }
  ): Promise<void> {
    await ensurePluginIndex(this.#ops, ctx, keys, options)
  }

  async fileNamingKey (ctx: RequestContext, _id: ObjectId, field: string, key: string): Promise<Document | null> {
    return await fileNamingKey(this.#ops, ctx, _id, field, key)
  }

  async fileKeysOf (ctx: RequestContext, ids: ObjectId[], field: string): Promise<Set<string>> {
    return await fileKeysOf(this.#ops, ctx, ids, field)
  }

  /**
   * Bulk PUT: sets `record`'s fields on every record of the caller matching `filter`; when none
   * matches, inserts one if that is safe (see upsertSeed) unless `upsert: false` (GraphQL
   * `<path>UpdateMany`). Fires no hooks; one bulk event.
   */
  async bulkPut (
    ctx: RequestContext,
    filter: Record<string, unknown>,
    record: unknown,
    opts: { upsert?: boolean } = {}
  ): Promise<{ numAffected: number }> {
    const scoped = this.scopeFilter(ctx, 'bulk')
    screenQuery(this.model, ctx, filter, undefined)
    await this.charge(ctx, BULK_WRITE_PRICE)
    refuseBulkState(this.model, record)
    const userFilter = buildFilter(this.model, filter)
    const { set, unset } = this.accept(ctx, record, 'update')
    if (Object.keys(set).length === 0 && unset.length === 0) {
      throw new ValidationError('record has no writable fields', { field: 'record' })
    }
    const owner = ctx.identity?.kind === 'user' ? stamp(ctx) : null
    const seed =
      opts.upsert !== false && owner !== null && legalSeed(this.model, userFilter)
        ? upsertSeed(this.model, userFilter, set, owner)
        : null
    if (seed != null) stampInitial(this.model, seed, userFilter)
    const results: WriteResult[] = []
    const h = this.#host
    await h.commit(async () => {
      results.length = 0
      const plan = await planBulkUpdate(
        this.#collection,
        and(userFilter, scoped),
        { set, unset },
        { maxTimeMS: this.maxTimeMS, seed, images: this.#bulkRecords || this.#effects.length > 0 }
      )
      const writeId = newWriteId()
      if (plan.created !== undefined) {
        results.push({
          action: 'created',
          writeId,
          model: this.model,
          ctx,
          recordId: plan.created._id,
          before: null,
          after: plan.created
        })
      }
      results.push({
        action: 'updated',
        writeId,
        model: this.model,
        ctx,
        filter: toJson(userFilter),
        numAffected: plan.targets.length,
        ...(this.#bulkRecords ? { records: plan.records ?? [] } : {})
      })
      return plan.targets.length === 0
        ? null
        : { coll: this.#collection, targets: plan.targets, results, write: plan.write }
    })
    if (results.length === 0) {
      results.push({
        action: 'updated',
        writeId: newWriteId(),
        model: this.model,
        ctx,
        filter: toJson(userFilter),
        numAffected: 0,
        ...(this.#bulkRecords ? { records: [] } : {})
      })
    }
    for (const r of results) await this.publish(r)
    return { numAffected: results[results.length - 1].numAffected ?? 0 }
  }

  /**
   * Runs write subscribers, then emits the record event. Called after every write here; plugins
   * that add a write operation (soft delete's restore) call it so audit and webhooks see it too.
   */
  async publish (result: WriteResult): Promise<void> {
    const log = this.#log(result.ctx)
    if (this.#cachesAggregations && this.aggregationCache.invalidate !== undefined) {
      // Before the answer: the writer's next aggregation, on any replica, sees its write.
      const owner = result.recordId !== undefined ? (ownerOf(result) ?? null) : null
      await this.aggregationCache.invalidate(this.model.key, owner).catch((err: unknown) => {
        log.error(
          { err, path: this.model.path },
          'aggregation cache invalidation failed: cached answers may be stale for their TTL'
        )
      })
    }
    for (const sub of this.#subscribers) {
      try {
        await sub(result)
      } catch (err) {
        log.error({ err, path: this.model.path, action: result.action }, 'write subscriber failed')
      }
    }
    const type = `${this.model.path}.${result.action}`
    this.#deps.events.emit(type, {
      type,
      version: this.model.version,
      path: this.model.path,
      // The record's owner, not the actor: an acl.delete operator's delete is the owner's event (webhooks are per tenant).
      userId: ownerOf(result) ?? result.ctx.identity?.userId ?? null,
      ...(result.recordId !== undefined ? { recordId: result.recordId } : {}),
      ...(result.after != null ? { record: result.after } : result.before != null ? { record: result.before } : {}),
      ...(result.before != null ? { before: result.before } : {}),
      ...(result.filter !== undefined ? { filter: result.filter, numAffected: result.numAffected } : {}),
      ...(result.transition !== undefined ? result.transition : {})
    })
  }
}
