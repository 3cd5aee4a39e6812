import { ObjectId, type Collection, type Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { ConflictError, NotFoundError, ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { parseId, toJson } from '../values/convert.js'
import { canRead } from './acl.js'
import { hookBase, runAfter, runBefore } from './hooks.js'
import { prepareInput, type PreparedInput } from './input.js'
import {
  checkInitial,
  planTransitions,
  runOnEnter,
  stampInitial,
  transitionGuard,
  type Transition
} from './state-machine.js'
import { and, stamp, type Operation } from './tenancy.js'
import type { DeleteStrategy, RecordJson, TombstoneUpdate, WriteResult } from './types.js'
import { nextStamp, type PlannedWrite } from './durable/commit.js'
import type { RecordStatement } from './durable/types.js'
import { fromStatement } from './durable/statement.js'
import { stateOf } from './durable/intents.js'

/**
 * What the single-record write path needs from its ResourceService: built once per service (the
 * caller's context is an argument of each write, never captured), so a write allocates no host.
 */
export interface WriteHost {
  model: ResourceModel
  collection: Collection
  /** Time bound of each query (see ResourceService.maxTimeMS). */
  maxTimeMS: number
  /** The service's delete strategy as set now (soft delete replaces it at registration). */
  deleteStrategy: DeleteStrategy
  log: (ctx: RequestContext) => FastifyBaseLogger
  scopeFilter: (ctx: RequestContext, op: Operation) => Document
  accept: (ctx: RequestContext, input: unknown, mode: 'create' | 'update') => PreparedInput
  present: (ctx: RequestContext, doc: Document) => RecordJson
  publish: (result: WriteResult) => Promise<void>
  /** Runs the purge hooks for documents removed for good (hard delete). */
  purged: (docs: Document[], ctx: RequestContext) => Promise<void>
  /**
   * Commits a planned write with the service's durable effects (see durable/commit.ts),
   * planning again after a lost race; a plan of `null` writes nothing. `taken` throws when a
   * create's id is already used.
   */
  commit: (
    plan: (attempt: number) => Promise<PlannedWrite | null>,
    taken?: () => never
  ) => Promise<{ changed: string[] }>
}

export function newWriteId (): string {
  return new ObjectId().toHexString()
}

/** The record after a `$set`/`$unset` of top-level fields (the image the write will produce). */
export function applyChange (doc: Document, change: TombstoneUpdate): Document {
  const next: Document = { ...doc, ...change.$set }
  for (const k of Object.keys(change.$unset ?? {})) delete next[k]
  return next
}

/** The write's guard: the record is still exactly as read (every write moves `updatedAt`). */
export function asRead (doc: Document): Document {
  return { _id: doc._id, updatedAt: doc.updatedAt ?? null }
}

/** A caller who may write but not read a state field must not learn its value from a refusal. */
function redactState<E> (model: ResourceModel, ctx: RequestContext, err: E): E {
  const details = (err as { details?: Record<string, unknown> }).details
  const f = typeof details?.field === 'string' ? model.fieldsByPath.get(details.field) : undefined
  if (f !== undefined && !canRead(ctx, f)) {
    delete details!.current
    delete details!.allowed
    delete details!.expected
    if (err instanceof Error) err.message = `${f.name}: this change is not allowed now`
  }
  return err
}

function notFound (model: ResourceModel): never {
  throw new NotFoundError(`${model.path} not found`)
}

/**
 * Create: screen + validate the client's input, stamp tenant and initial states, beforeCreate
 * (its result is validated again and re-stamped, so a hook cannot change ownership, ids,
 * timestamps or pick a non-initial state), insert with the durable effects, publish,
 * afterCreate with the projected record.
 */
export async function createRecord (
  h: WriteHost,
  ctx: RequestContext,
  input: unknown,
  opts: { _id?: ObjectId } = {}
): Promise<RecordJson> {
  const { model } = h
  const owner = stamp(ctx)
  let { set } = h.accept(ctx, input, 'create')
  checkInitial(model, set)
  stampInitial(model, set)
  if (model.hooks.beforeCreate !== undefined) {
    const given: Record<string, unknown> = { ...set, ...owner }
    const out = (await runBefore(model, 'beforeCreate', { input: given, ...hookBase(model, ctx) })) ?? given
    set = prepareInput(model, out, 'create').set
    checkInitial(model, set)
    stampInitial(model, set)
  }
  const now = new Date()
  // An idempotent create brings its `_id` from the key's claim, so a retried insert cannot duplicate.
  const _id = opts._id ?? new ObjectId()
  const doc: Document = { _id, ...set, ...owner, createdAt: now, updatedAt: now }
  const after = toJson<RecordJson>(doc)
  const result: WriteResult = {
    action: 'created',
    writeId: newWriteId(),
    model,
    ctx,
    recordId: after._id,
    before: null,
    after
  }
  await h.commit(
    async () => ({
      coll: h.collection,
      targets: [{ recordId: _id, from: null, to: now.getTime() }],
      results: [result],
      ...fromStatement(h.collection, { insertOne: doc }, [after._id])
    }),
    () => {
      throw duplicateId(h.collection)
    }
  )
  await h.publish(result)
  const record = h.present(ctx, doc)
  await runAfter(model, 'afterCreate', { record, ...hookBase(model, ctx) }, h.log(ctx))
  return record
}

function duplicateId (coll: Collection): Error {
  return Object.assign(new Error(`E11000 duplicate key error collection: ${coll.collectionName} index: _id_`), {
    code: 11000,
    keyPattern: { _id: 1 }
  })
}

function stateConflict (h: WriteHost, ctx: RequestContext, first: Transition[], now: Document): Error | undefined {
  const t = first.find((x) => now[x.field] !== x.from)
  if (t === undefined) return undefined
  return redactState(
    h.model,
    ctx,
    new ConflictError(`${t.field} changed concurrently; read the record and retry`, {
      field: t.field,
      current: now[t.field] ?? null,
      attempted: t.to,
      expected: t.from
    })
  )
}

/**
 * Update by id: read `current` (the hook sees it), run beforeUpdate on the ACL-checked input,
 * validate state changes against the record, then write conditionally on the record being
 * exactly as read. A lost race is planned again on the fresh record, except that a state the
 * transitions were validated from must not have moved: of two concurrent transitions from one
 * state exactly one lands, the other is 409 CONFLICT.
 */
export async function updateRecord (
  h: WriteHost,
  ctx: RequestContext,
  id: string,
  patch: unknown,
  opts: { hooks?: boolean } = {}
): Promise<RecordJson> {
  const { model } = h
  const scoped = h.scopeFilter(ctx, 'update')
  const _id = parseId(id) ?? notFound(model)
  let { set, unset } = h.accept(ctx, patch, 'update')
  const hooks = opts.hooks !== false
  const read = async (): Promise<Document> =>
    (await h.collection.findOne(and({ _id }, scoped), { maxTimeMS: h.maxTimeMS })) ?? notFound(model)
  let current = await read()
  if (hooks && model.hooks.beforeUpdate !== undefined) {
    const given: Record<string, unknown> = { ...set, ...Object.fromEntries(unset.map((k) => [k, null])) }
    const out = await runBefore(model, 'beforeUpdate', {
      input: given,
      current: toJson(current),
      ...hookBase(model, ctx)
    })
    ;({ set, unset } = prepareInput(model, out ?? given, 'update'))
  }
  let first: Transition[] | undefined
  let transitions: Transition[] = []
  let previous: Document = current
  let next: Document = current
  let results: WriteResult[] = []
  await h.commit(async (attempt) => {
    if (attempt > 0) {
      current = await read()
      const moved = stateConflict(h, ctx, first ?? [], current)
      if (moved !== undefined) throw moved
    }
    try {
      transitions = planTransitions(model, current, set, unset)
    } catch (err) {
      throw redactState(model, ctx, err)
    }
    first ??= transitions
    const updatedAt = nextStamp(stateOf(current))
    const change: TombstoneUpdate = { $set: { ...set, updatedAt } }
    if (unset.length > 0) change.$unset = Object.fromEntries(unset.map((k) => [k, '' as const]))
    previous = current
    next = applyChange(current, change)
    const before = toJson<RecordJson>(previous)
    const after = toJson<RecordJson>(next)
    const writeId = newWriteId()
    results = [
      { action: 'updated', writeId, model, ctx, recordId: after._id, before, after },
      ...transitions.map((t): WriteResult => ({
        action: 'transitioned',
        writeId,
        model,
        ctx,
        recordId: after._id,
        before,
        after,
        transition: t
      }))
    ]
    const guard = and(asRead(previous), transitionGuard(transitions))
    return {
      coll: h.collection,
      targets: [{ recordId: _id, from: stateOf(previous), to: updatedAt.getTime() }],
      results,
      ...fromStatement(h.collection, { updateOne: { filter: guard, update: change } }, [after._id])
    }
  })
  for (const r of results) await h.publish(r)
  const record = h.present(ctx, next)
  const base = hookBase(model, ctx)
  const prior = h.present(ctx, previous)
  for (const t of transitions) await runOnEnter(model, t, { record, previous: prior, ...base }, h.log(ctx))
  if (hooks) await runAfter(model, 'afterUpdate', { record, previous: prior, ...base }, h.log(ctx))
  return record
}

/** Delete by id: beforeDelete sees the stored document and may veto; afterDelete gets the projected record. */
export async function deleteRecord (h: WriteHost, ctx: RequestContext, id: string): Promise<RecordJson> {
  const { model } = h
  const scoped = h.scopeFilter(ctx, 'delete')
  const _id = parseId(id) ?? notFound(model)
  const read = async (): Promise<Document> =>
    (await h.collection.findOne(and({ _id }, scoped), { maxTimeMS: h.maxTimeMS })) ?? notFound(model)
  let current = await read()
  if (model.hooks.beforeDelete !== undefined) {
    await runBefore(model, 'beforeDelete', { current: toJson(current), ...hookBase(model, ctx) })
  }
  let after: Document | null = null
  let result: WriteResult | undefined
  await h.commit(async (attempt) => {
    if (attempt > 0) current = await read()
    const tombstone = h.deleteStrategy({ ctx, model, record: current })
    const from = stateOf(current)
    const before = toJson<RecordJson>(current)
    const guard = asRead(current)
    let statement: RecordStatement
    let to: number | null = null
    if (tombstone === null) {
      after = null
      statement = { deleteOne: { filter: guard } }
    } else {
      const updatedAt = nextStamp(from)
      const change: TombstoneUpdate = { ...tombstone, $set: { ...tombstone.$set, updatedAt } }
      after = applyChange(current, change)
      to = updatedAt.getTime()
      statement = { updateOne: { filter: guard, update: change } }
    }
    result = {
      action: 'deleted',
      writeId: newWriteId(),
      model,
      ctx,
      recordId: before._id,
      before,
      after: after === null ? null : toJson<RecordJson>(after)
    }
    return {
      coll: h.collection,
      targets: [{ recordId: _id, from, to }],
      results: [result],
      ...fromStatement(h.collection, statement, [before._id])
    }
  })
  await h.publish(result!)
  // A removal (not a tombstone) is final: attached blobs go with it.
  if (after === null) await h.purged([current], ctx)
  const record = h.present(ctx, after ?? current)
  await runAfter(model, 'afterDelete', { record, ...hookBase(model, ctx) }, h.log(ctx))
  return record
}

/**
 * One record matching `filter` (tenant and scopes already in it) changed by top-level
 * `$set`/`$unset`, with no hooks: file fields, soft delete's restore. Published as `updated`
 * (with `operation` when given). Answers the stored images, or null when nothing matched.
 */
export async function patchRecord (
  h: WriteHost,
  ctx: RequestContext,
  filter: Document,
  change: TombstoneUpdate,
  opts: { operation?: string } = {}
): Promise<{ before: Document; after: Document } | null> {
  let images: { before: Document; after: Document } | null = null
  let result: WriteResult | undefined
  await h.commit(async () => {
    const current = await h.collection.findOne(filter, { maxTimeMS: h.maxTimeMS })
    if (current == null) {
      images = null
      return null
    }
    const updatedAt = nextStamp(stateOf(current))
    const full: TombstoneUpdate = { ...change, $set: { ...change.$set, updatedAt } }
    const next = applyChange(current, full)
    images = { before: current, after: next }
    const before = toJson<RecordJson>(current)
    result = {
      action: 'updated',
      writeId: newWriteId(),
      model: h.model,
      ctx,
      recordId: before._id,
      before,
      after: toJson<RecordJson>(next),
      ...(opts.operation !== undefined ? { operation: opts.operation } : {})
    }
    return {
      coll: h.collection,
      targets: [{ recordId: current._id, from: stateOf(current), to: updatedAt.getTime() }],
      results: [result],
      ...fromStatement(h.collection, { updateOne: { filter: asRead(current), update: full } }, [before._id])
    }
  })
  if (images !== null) await h.publish(result!)
  return images
}

/**
 * The dedicated transition operation (GraphQL `<path>Transition<Field>`, MCP): the same ACL,
 * transition table and conditional write as PUT by id, but per the spec only `onEnter` runs,
 * not beforeUpdate/afterUpdate.
 */
export async function transitionRecord (
  h: WriteHost,
  ctx: RequestContext,
  id: string,
  field: string,
  to: unknown
): Promise<RecordJson> {
  if (!Object.hasOwn(h.model.stateMachines, field)) {
    throw new ValidationError(`${field} is not a state field of ${h.model.path}`, { field })
  }
  if (typeof to !== 'string') throw new ValidationError(`${field} must be a string`, { field })
  return await updateRecord(h, ctx, id, { [field]: to }, { hooks: false })
}
