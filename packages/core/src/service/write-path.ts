import type { Collection, Document, ObjectId } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { ConflictError, NotFoundError, ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { parseId, toJson } from '../values/convert.js'
import { canRead } from './acl.js'
import { hookBase, runAfter, runBefore } from './hooks.js'
import { prepareInput, type PreparedInput } from './input.js'
import { checkInitial, planTransitions, runOnEnter, stampInitial, transitionGuard, type Transition } from './state-machine.js'
import { and, stamp, type Operation } from './tenancy.js'
import type { DeleteStrategy, RecordJson, WriteResult } from './types.js'

/** What the single-record write path needs from its ResourceService. */
export interface WriteHost {
  model: ResourceModel
  collection: Collection
  /** Time bound of each query (see ResourceService.maxTimeMS). */
  maxTimeMS: number
  deleteStrategy: DeleteStrategy
  log: FastifyBaseLogger
  scopeFilter: (ctx: RequestContext, op: Operation) => Document
  accept: (ctx: RequestContext, input: unknown, mode: 'create' | 'update') => PreparedInput
  present: (ctx: RequestContext, doc: Document) => RecordJson
  publish: (result: WriteResult) => Promise<void>
  /** Runs the purge hooks for documents removed for good (hard delete). */
  purged: (docs: Document[]) => Promise<void>
}

/** A caller who may write but not read a state field must not learn its value from a refusal. */
function redactState (model: ResourceModel, ctx: RequestContext, err: unknown): unknown {
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
 * timestamps or pick a non-initial state), insert, publish, afterCreate with the projected record.
 */
export async function createRecord (h: WriteHost, ctx: RequestContext, input: unknown, opts: { _id?: ObjectId } = {}): Promise<RecordJson> {
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
  const doc: Document = { ...(opts._id !== undefined ? { _id: opts._id } : {}), ...set, ...owner, createdAt: now, updatedAt: now }
  await h.collection.insertOne(doc)
  const after = toJson<RecordJson>(doc)
  await h.publish({ action: 'created', model, ctx, recordId: after._id, before: null, after })
  const record = h.present(ctx, doc)
  await runAfter(model, 'afterCreate', { record, ...hookBase(model, ctx) }, h.log)
  return record
}

/**
 * Update by id. Without a beforeUpdate hook or a state change it is one atomic round trip. With
 * them: read `current`, run the hook on the ACL-checked input, validate state changes against
 * the result, then write conditionally on the states still being what was validated: of two
 * concurrent transitions from one state exactly one lands, the other is 409 CONFLICT.
 */
export async function updateRecord (h: WriteHost, ctx: RequestContext, id: string, patch: unknown, opts: { hooks?: boolean } = {}): Promise<RecordJson> {
  const { model } = h
  const scoped = h.scopeFilter(ctx, 'update')
  const _id = parseId(id) ?? notFound(model)
  let { set, unset } = h.accept(ctx, patch, 'update')
  const touchesState = Object.keys(model.stateMachines).some((f) => Object.hasOwn(set, f) || unset.includes(f))
  let transitions: Transition[] = []
  const hooks = opts.hooks !== false
  if ((hooks && model.hooks.beforeUpdate !== undefined) || touchesState) {
    const current = (await h.collection.findOne(and({ _id }, scoped), { maxTimeMS: h.maxTimeMS })) ?? notFound(model)
    if (hooks && model.hooks.beforeUpdate !== undefined) {
      const given: Record<string, unknown> = { ...set, ...Object.fromEntries(unset.map((k) => [k, null])) }
      const out = await runBefore(model, 'beforeUpdate', { input: given, current: toJson(current), ...hookBase(model, ctx) })
      ;({ set, unset } = prepareInput(model, out ?? given, 'update'))
    }
    try {
      transitions = planTransitions(model, current, set, unset)
    } catch (err) {
      throw redactState(model, ctx, err)
    }
  }
  const $set = { ...set, updatedAt: new Date() }
  const update: Document = { $set }
  if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((k) => [k, '']))
  const previous = await h.collection.findOneAndUpdate(and({ _id }, scoped, transitionGuard(transitions)), update, { returnDocument: 'before', maxTimeMS: h.maxTimeMS })
  if (previous == null) {
    if (transitions.length === 0) notFound(model)
    const now = (await h.collection.findOne(and({ _id }, scoped), { maxTimeMS: h.maxTimeMS })) ?? notFound(model)
    const t = transitions.find((x) => now[x.field] !== x.from) ?? transitions[0]
    throw redactState(model, ctx, new ConflictError(`${t.field} changed concurrently; read the record and retry`, { field: t.field, current: now[t.field] ?? null, attempted: t.to, expected: t.from }))
  }
  const next: Document = { ...previous, ...$set }
  for (const k of unset) delete next[k]
  const before = toJson<RecordJson>(previous)
  const after = toJson<RecordJson>(next)
  await h.publish({ action: 'updated', model, ctx, recordId: after._id, before, after })
  for (const t of transitions) await h.publish({ action: 'transitioned', model, ctx, recordId: after._id, before, after, transition: t })
  const record = h.present(ctx, next)
  const base = hookBase(model, ctx)
  const prior = h.present(ctx, previous)
  for (const t of transitions) await runOnEnter(model, t, { record, previous: prior, ...base }, h.log)
  if (hooks) await runAfter(model, 'afterUpdate', { record, previous: prior, ...base }, h.log)
  return record
}

/** Delete by id: beforeDelete sees the stored document and may veto; afterDelete gets the projected record. */
export async function deleteRecord (h: WriteHost, ctx: RequestContext, id: string): Promise<RecordJson> {
  const { model } = h
  const scoped = h.scopeFilter(ctx, 'delete')
  const _id = parseId(id) ?? notFound(model)
  if (model.hooks.beforeDelete !== undefined) {
    const current = (await h.collection.findOne(and({ _id }, scoped), { maxTimeMS: h.maxTimeMS })) ?? notFound(model)
    await runBefore(model, 'beforeDelete', { current: toJson(current), ...hookBase(model, ctx) })
  }
  const res = (await h.deleteStrategy({ ctx, model, collection: h.collection, filter: and({ _id }, scoped), maxTimeMS: h.maxTimeMS })) ?? notFound(model)
  const before = toJson<RecordJson>(res.before)
  const after = res.after == null ? null : toJson<RecordJson>(res.after)
  await h.publish({ action: 'deleted', model, ctx, recordId: before._id, before, after })
  // A removal (not a tombstone) is final: attached blobs go with it.
  if (res.after == null) await h.purged([res.before])
  const record = h.present(ctx, res.after ?? res.before)
  await runAfter(model, 'afterDelete', { record, ...hookBase(model, ctx) }, h.log)
  return record
}

/**
 * The dedicated transition operation (GraphQL `<path>Transition<Field>`, MCP): the same ACL,
 * transition table and conditional write as PUT by id, but per the spec only `onEnter` runs,
 * not beforeUpdate/afterUpdate.
 */
export async function transitionRecord (h: WriteHost, ctx: RequestContext, id: string, field: string, to: unknown): Promise<RecordJson> {
  if (!Object.hasOwn(h.model.stateMachines, field)) throw new ValidationError(`${field} is not a state field of ${h.model.path}`, { field })
  if (typeof to !== 'string') throw new ValidationError(`${field} must be a string`, { field })
  return await updateRecord(h, ctx, id, { [field]: to }, { hooks: false })
}
