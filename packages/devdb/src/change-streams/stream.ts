/**
 * `aggregate` with a leading `$changeStream`: opens a tailable, awaitData cursor over the change
 * history — on a collection, a database (`aggregate: 1`) or the deployment (`aggregate: 1` on
 * `admin` with `allChangesForCluster`) — from now, or from a resume token (`resumeAfter`,
 * `startAfter`) or a time (`startAtOperationTime`). The stages mongod allows after it run through
 * mingo on each event.
 */
import type { Document } from 'bson'
import { Aggregator } from 'mingo/aggregator'
import type { CommandContext } from '../commands/context.js'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { nonNegative } from '../commands/args.js'
import { cloneDoc } from '../engine/update/clone.js'
import { mingoOptions } from '../query/options.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { validatePipeline, stageName, PIPELINE_STAGES } from '../query/pipeline.js'
import { parseChangeStreamSpec, type ChangeStreamSpec } from './spec.js'
import type { Scope } from './scope.js'
import type { ChangeHistory } from './history.js'
import { decodeToken } from './token.js'
import { ChangeStreamSource } from './source.js'
import { planPushdown } from './pushdown.js'

/** Stages mongod accepts after $changeStream */
const ALLOWED = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$redact'
])

export function isChangeStream (pipeline: unknown): boolean {
  return Array.isArray(pipeline) && isPlainDoc(pipeline[0]) && Object.keys(pipeline[0])[0] === '$changeStream'
}

export function openChangeStream (cmd: Document, ctx: CommandContext): Document {
  const history = ctx.server.changes
  if (ctx.server.replSetName === undefined || history === undefined) {
    throw new CommandError(40573, 'Location40573', 'The $changeStream stage is only supported on replica sets')
  }
  if (cmd.explain === true) {
    throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'devdb does not explain $changeStream')
  }
  if (cmd.startTransaction !== undefined || cmd.autocommit !== undefined) {
    throw new CommandError(
      Codes.OperationNotSupportedInTransaction,
      'OperationNotSupportedInTransaction',
      'Operation not permitted in transaction :: caused by :: $changeStream cannot run in a multi-document transaction'
    )
  }
  if (!isPlainDoc(cmd.cursor)) {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument"
    )
  }
  const batchSize = nonNegative(
    isNumeric(cmd.cursor.batchSize) ? toNumber(cmd.cursor.batchSize) : undefined,
    'batchSize'
  )
  const pipeline = cmd.pipeline as Document[]
  const spec = parseChangeStreamSpec(pipeline[0].$changeStream)
  const scope = scopeOf(cmd.aggregate, ctx.db, spec)
  const rest = pipeline.slice(1)
  for (const stage of rest) {
    const name = stageName(stage)
    if (name === '$changeStream') {
      throw new CommandError(40602, 'Location40602', '$changeStream is only valid as the first stage in a pipeline.')
    }
    if (!PIPELINE_STAGES.has(name)) {
      throw new CommandError(40324, 'Location40324', `Unrecognized pipeline stage name: '${name}'`)
    }
    if (!ALLOWED.has(name)) {
      throw new CommandError(
        Codes.IllegalOperation,
        'IllegalOperation',
        `${name} is not permitted in a $changeStream pipeline`
      )
    }
  }
  validatePipeline(rest)
  const transform = rest.length === 0 ? undefined : compile(rest)
  const source = new ChangeStreamSource({
    history,
    scope,
    spec,
    catalog: ctx.server.catalog,
    clock: ctx.server.clock,
    transform,
    pushdown: rest.length === 0 ? undefined : planPushdown(rest, { documentInHead: spec.fullDocument === 'default' }),
    start: startSeq(spec, history, ctx)
  })
  const ns = scope.kind === 'coll' ? `${scope.db}.${scope.coll}` : `${ctx.db}.$cmd.aggregate`
  ctx.server.opcounters.command++
  return ctx.server.cursors.firstBatch(ns, source, batchSize)
}

function scopeOf (target: unknown, db: string, spec: ChangeStreamSpec): Scope {
  if (spec.allChangesForCluster) {
    if (db !== 'admin' || target !== 1) {
      throw new CommandError(
        Codes.InvalidNamespace,
        'InvalidNamespace',
        "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name; found " +
          `${db}.${String(target)}`
      )
    }
    return { kind: 'cluster' }
  }
  if (db === 'admin' || db === 'config' || db === 'local') {
    throw new CommandError(
      Codes.InvalidNamespace,
      'InvalidNamespace',
      `$changeStream may not be opened on the internal ${db} database`
    )
  }
  if (target === 1) return { kind: 'db', db }
  if (typeof target !== 'string') {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "Invalid command format: the 'aggregate' field must specify a collection name or 1"
    )
  }
  if (target.startsWith('system.')) {
    throw new CommandError(
      Codes.InvalidNamespace,
      'InvalidNamespace',
      `$changeStream may not be opened on the internal ${db}.${target} collection`
    )
  }
  return { kind: 'coll', db, coll: target }
}

const HISTORY_LOST = (): CommandError =>
  new CommandError(
    286,
    'ChangeStreamHistoryLost',
    'Resume of change stream was not possible, as the resume point may no longer be in the oplog.'
  )

/** The history position the stream reads after. */
function startSeq (spec: ChangeStreamSpec, history: ChangeHistory, ctx: CommandContext): number {
  const token = spec.resumeAfter ?? spec.startAfter
  if (token !== undefined) {
    const field = spec.resumeAfter !== undefined ? 'resumeAfter' : 'startAfter'
    const p = decodeToken(token, field)
    if (p.epoch !== history.epoch || p.seq < history.evictedThrough) throw HISTORY_LOST()
    if (p.invalidate && spec.resumeAfter !== undefined) {
      throw new CommandError(
        260,
        'InvalidResumeToken',
        "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification."
      )
    }
    return Math.min(p.seq, history.latestSeq)
  }
  if (spec.startAtOperationTime !== undefined) {
    const at = spec.startAtOperationTime
    if (history.evictedTime !== undefined && !at.greaterThan(history.evictedTime)) throw HISTORY_LOST()
    return history.seqBefore(at)
  }
  // From now: a time of its own, so resuming at this reply's operationTime replays nothing from before.
  ctx.server.clock.tick()
  return history.latestSeq
}

function compile (stages: Document[]): (event: Document) => Document | undefined {
  const agg = new Aggregator(stages, mingoOptions({}))
  return (event) => {
    try {
      return agg.run([cloneDoc(event)])[0] as Document | undefined
    } catch (e) {
      throw translateMingoError(e)
    }
  }
}
