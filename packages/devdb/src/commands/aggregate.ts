/**
 * aggregate: the leading $match/$sort/$skip/$limit run through the query planner (indexes,
 * `$text`, limits), the rest through mingo; $out and $merge write the results.
 */
import { isNumeric, toNumber } from '../bson/bson-order.js'
import type { Document } from 'bson'
import { Aggregator } from 'mingo/aggregator'
import type { CommandContext, Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { openQuery, prepareFilter, type PreparedFilter } from '../engine/select.js'
import { cloneDoc } from '../engine/update/clone.js'
import { mingoOptions } from '../query/options.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { validatePipeline, rewriteMeta, rewriteSortMeta, stageName, TEXT_SCORE_FIELD } from '../query/pipeline.js'
import { splitPipelineHead, type PipelineHead } from '../query/pipeline-head.js'
import { countOnlyPipeline, type CountResult } from '../query/count-pipeline.js'
import { sortMemoryLimit, checkHint, countResult } from './find.js'
import { nonNegative } from './args.js'
import { parseMerge, writeMerge } from './merge-stage.js'
import { writeOut } from './aggregate-out.js'
import type { Deadline } from '../engine/deadline.js'
import type { Collection } from '../engine/collection.js'
import type { PlanExecutor } from '../plan/executor.js'
import { letVariables } from '../query/let-vars.js'
import { effectiveCollation, type Collation } from '../collation/collation.js'
import { explainSections, type Verbosity } from '../plan/explain.js'
import { serverSourceStage } from '../admin/admin-stages.js'
import { isChangeStream, openChangeStream } from '../change-streams/stream.js'

const READ_ONLY_STAGES = new Set(['$match', '$sort', '$limit', '$skip', '$count', '$group', '$sortByCount', '$sample'])

export interface AggregatePlan {
  coll?: Collection
  head: PipelineHead
  prepared?: PreparedFilter
  /** undefined when there is nothing to read ({aggregate: 1}, a missing collection, $limit 0) */
  exec?: PlanExecutor
  collation?: Collation
  variables?: Document
  /** the rest of the pipeline only counts: the executor is a count plan */
  countOnly?: CountResult
}

/** Validates an aggregate command and plans the part of it the query layer runs. */
export function planAggregate (cmd: Document, ctx: CommandContext): AggregatePlan {
  // $collStats and $currentOp read the server: their output is the pipeline's input documents
  const server = serverSourceStage(cmd, ctx)
  const target = server !== undefined ? 1 : cmd.aggregate
  const pipeline = validatePipeline(server ?? listLocalSessions(cmd.pipeline, target, ctx))
  const variables = letVariables(cmd.let, 'aggregate.let')
  if (target === 1) {
    if (pipeline.length === 0 || stageName(pipeline[0]) !== '$documents') {
      throw new CommandError(
        Codes.InvalidNamespace,
        'InvalidNamespace',
        `{aggregate: 1} is not valid for '${pipeline.length > 0 ? stageName(pipeline[0]) : ''}'; a collection is required.`
      )
    }
    return {
      head: { sort: [], skip: 0, rest: pipeline },
      variables,
      collation: effectiveCollation(cmd.collation, undefined)
    }
  }
  if (typeof target !== 'string') {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "Invalid command format: the 'aggregate' field must specify a collection name or 1"
    )
  }
  const coll = ctx.server.catalog.get(ctx.db, target)
  const collation = effectiveCollation(cmd.collation, coll?.collation)
  checkHint(coll, cmd.hint)
  const head = splitPipelineHead(pipeline)
  const prepared = prepareFilter(coll, head.filter, variables, collation)
  const countOnly = prepared.score === undefined ? countOnlyPipeline(head.rest) : undefined
  if (coll === undefined || head.limit === 0) return { coll, head, prepared, collation, variables, countOnly }
  const exec = openQuery(coll, prepared, {
    sort: countOnly !== undefined ? [] : head.sort,
    skip: head.skip,
    limit: head.limit ?? 0,
    deadline: ctx.deadline,
    hint: cmd.hint,
    count: countOnly !== undefined,
    sortMemoryLimit: sortMemoryLimit(cmd, ctx),
    planCache: ctx.explaining !== true && cmd.explain !== true,
    errorContext: 'PlanExecutor error during aggregation'
  })
  return { coll, head, prepared, exec, collation, variables, countOnly }
}

/**
 * `$listLocalSessions` (first stage of an `aggregate: 1`): the server's local session cache —
 * every session a command used in the last 30 minutes — fed to the rest of the pipeline as
 * `$documents`. Without authentication `{}`, `allUsers` and `users` list the same sessions.
 */
function listLocalSessions (pipeline: unknown, target: unknown, ctx: CommandContext): unknown {
  const first: unknown = Array.isArray(pipeline) ? pipeline[0] : undefined
  if (!isPlainDoc(first) || !('$listLocalSessions' in first)) return pipeline
  const spec: unknown = first.$listLocalSessions
  if (!isPlainDoc(spec)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field '$listLocalSessions' is the wrong type, expected type 'object'"
    )
  }
  for (const k of Object.keys(spec)) {
    if (k !== 'allUsers' && k !== 'users') {
      throw new CommandError(40415, 'Location40415', `BSON field '$listLocalSessions.${k}' is an unknown field.`)
    }
  }
  if (target !== 1) {
    throw new CommandError(
      Codes.InvalidNamespace,
      'InvalidNamespace',
      '$listLocalSessions must be run against the database with {aggregate: 1}, not a collection'
    )
  }
  return [{ $documents: { $literal: ctx.server.sessions.localSessions() } }, ...(pipeline as unknown[]).slice(1)]
}

export const aggregateCommand: Handler = (cmd, ctx) => {
  if (isChangeStream(cmd.pipeline)) return openChangeStream(cmd, ctx)
  if (!isPlainDoc(cmd.cursor) && cmd.explain !== true) {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument"
    )
  }
  const batchSize = nonNegative(
    isNumeric(cmd.cursor?.batchSize) ? toNumber(cmd.cursor.batchSize) : undefined,
    'batchSize'
  )
  const plan = planAggregate(cmd, ctx)
  if (cmd.explain === true) return { explainVersion: '1', ...aggregateExplain(plan, cmd, ctx, 'queryPlanner'), ok: 1 }
  const catalog = ctx.server.catalog
  const ns = typeof cmd.aggregate === 'string' ? `${ctx.db}.${cmd.aggregate}` : `${ctx.db}.$cmd.aggregate`
  if (plan.countOnly !== undefined) {
    return ctx.server.cursors.firstBatch(
      ns,
      plan.countOnly(plan.exec !== undefined ? countResult(plan.exec) : 0),
      batchSize
    )
  }
  let rest = plan.head.rest
  const docs: Document[] = []
  if (plan.exec !== undefined) for (let d = plan.exec.next(); d !== undefined; d = plan.exec.next()) docs.push(d)
  const score = plan.prepared?.score
  let source: Document[]
  if (score !== undefined) source = docs.map((d) => ({ ...cloneDoc(d), [TEXT_SCORE_FIELD]: score(d) }))
  // Some mingo stages ($addFields on dotted paths, $unwind…) write into their input; only
  // pipelines made of read-only stages may see the stored documents themselves.
  else source = rest.every((st) => READ_ONLY_STAGES.has(stageName(st))) ? docs : docs.map(cloneDoc)
  const used = { textScore: false }
  rest = rest.map((stage) => {
    const name = stageName(stage)
    if (name === '$sort') return { $sort: rewriteSortMeta(stage.$sort, used) }
    if (
      name === '$project' ||
      name === '$addFields' ||
      name === '$set' ||
      name === '$group' ||
      name === '$replaceRoot' ||
      name === '$replaceWith'
    ) {
      return { [name]: rewriteMeta(stage[name], used) }
    }
    return stage
  })
  if (used.textScore && score === undefined) {
    throw new CommandError(40218, 'Location40218', 'query requires text score metadata, but it is not available')
  }
  let outStage: unknown
  let mergeStage: unknown
  if (rest.length > 0 && stageName(rest[rest.length - 1]) === '$out') {
    outStage = rest[rest.length - 1].$out
    rest = rest.slice(0, -1)
  } else if (rest.length > 0 && stageName(rest[rest.length - 1]) === '$merge') {
    mergeStage = rest[rest.length - 1].$merge
    parseMerge(mergeStage, ctx.db)
    rest = rest.slice(0, -1)
  }
  let results: Document[]
  try {
    const opts = mingoOptions({
      ...(plan.variables !== undefined ? { variables: plan.variables } : {}),
      ...(plan.collation !== undefined ? { collation: plan.collation as never } : {}),
      collectionResolver: (name: string) => [...(catalog.get(ctx.db, name)?.documents() ?? [])].map(cloneDoc)
    })
    results =
      rest.length === 0 ? source : drain(new Aggregator(rest, opts).stream(ticking(source, ctx.deadline)), ctx.deadline)
  } catch (e) {
    throw translateMingoError(e)
  }
  if (score !== undefined) {
    for (const r of results) if (isPlainDoc(r) && TEXT_SCORE_FIELD in r) delete r[TEXT_SCORE_FIELD]
  }
  ctx.server.opcounters.command++
  if (outStage !== undefined) {
    writeOut(outStage, results, ctx)
    return ctx.server.cursors.firstBatch(ns, [], batchSize)
  }
  if (mergeStage !== undefined) {
    writeMerge(mergeStage, results, ctx)
    return ctx.server.cursors.firstBatch(ns, [], batchSize)
  }
  return ctx.server.cursors.firstBatch(ns, results, batchSize)
}

/**
 * Explain of an aggregate: mongod's shape — the planner's sections at the top when the whole
 * pipeline ran in the query layer, else a `$cursor` stage followed by the remaining stages.
 */
export function aggregateExplain (
  plan: AggregatePlan,
  cmd: Document,
  ctx: CommandContext,
  verbosity: Verbosity
): Document {
  const ns = typeof cmd.aggregate === 'string' ? `${ctx.db}.${cmd.aggregate}` : `${ctx.db}.$cmd.aggregate`
  const sections = explainSections({
    ns,
    filter: plan.head.filter,
    exec: plan.exec,
    verbosity,
    run: () => plan.exec?.drain()
  })
  if (plan.head.rest.length === 0) return sections
  return { stages: [{ $cursor: sections }, ...plan.head.rest] }
}

/** Feeds the pipeline one document at a time, counting each against the command's time budget. */
function * ticking (docs: Document[], deadline: Deadline): Generator<Document> {
  for (const d of docs) {
    deadline.tick()
    yield d
  }
}

function drain (it: { next: () => { done?: boolean; value?: unknown } }, deadline: Deadline): Document[] {
  const out: Document[] = []
  for (let r = it.next(); r.done !== true; r = it.next()) {
    deadline.tick()
    out.push(r.value as Document)
  }
  return out
}
