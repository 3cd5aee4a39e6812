/** find, getMore, killCursors, count and distinct (and their explain). */
import type { Document } from 'bson'
import type { CommandContext, Handler } from './context.js'
import { CommandError, Codes, badValue } from '../errors.js'
import { collectionArg, nonNegative, optionalDoc, optionalInt } from './args.js'
import { openQuery, prepareFilter, resolveHint, type PreparedFilter } from '../engine/select.js'
import { parseSort, type SortKey } from '../query/sort.js'
import { compileProjection, type CompiledProjection } from '../query/projection.js'
import { isNumeric, toNumber, compareValues } from '../bson/bson-order.js'
import { valuesAtPath } from '../bson/paths.js'
import { keyString } from '../bson/key-string.js'
import type { Collection } from '../engine/collection.js'
import { letVariables } from '../query/let-vars.js'
import { effectiveCollation } from '../collation/collation.js'
import { findSource } from './find-source.js'
import type { PlanExecutor } from '../plan/executor.js'

/** Validates `hint` against the collection (an unknown index is a BadValue, as in mongod). */
export function checkHint (coll: Collection | undefined, hint: unknown): void {
  resolveHint(coll, hint)
}

/**
 * Whether a blocking sort may exceed the memory limit ("spill to disk"; devdb sorts in memory
 * either way): the command's `allowDiskUse`, else the server's allowDiskUseByDefault (true in
 * mongod 7.0). Returns the limit to enforce, or undefined for none.
 */
export function sortMemoryLimit (cmd: Document, ctx: CommandContext): number | undefined {
  const allowed = typeof cmd.allowDiskUse === 'boolean' ? cmd.allowDiskUse : ctx.server.params.allowDiskUseByDefault
  return allowed ? undefined : ctx.server.params.internalQueryMaxBlockingSortMemoryUsageBytes
}

export interface FindQuery {
  coll: Collection | undefined
  prepared: PreparedFilter
  filter: Document | undefined
  sort: SortKey[]
  projection: CompiledProjection | undefined
  skip: number
  limit: number
  batchSize: number | undefined
}

export function parseFind (cmd: Document, ctx: CommandContext): FindQuery {
  const name = collectionArg(cmd, 'find')
  if (cmd.tailable === true || cmd.awaitData === true) {
    throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'tailable cursors are not supported by devdb')
  }
  if (cmd.min !== undefined || cmd.max !== undefined || cmd.returnKey === true || cmd.showRecordId === true) {
    throw new CommandError(
      Codes.NotImplemented,
      'NotImplemented',
      'find min/max/returnKey/showRecordId are not supported by devdb'
    )
  }
  const coll = ctx.server.catalog.get(ctx.db, name)
  const collation = effectiveCollation(cmd.collation, coll?.collation)
  const filter = optionalDoc(cmd, 'filter', 'find')
  const sort = parseSort(optionalDoc(cmd, 'sort', 'find'))
  const variables = letVariables(cmd.let, 'find.let')
  const projection = compileProjection(optionalDoc(cmd, 'projection', 'find'), variables)
  const skip = nonNegative(optionalInt(cmd, 'skip', 'find'), 'skip') ?? 0
  const limit = nonNegative(optionalInt(cmd, 'limit', 'find'), 'limit') ?? 0
  const batchSize = nonNegative(optionalInt(cmd, 'batchSize', 'find'), 'batchSize')
  checkHint(coll, cmd.hint)
  const prepared = prepareFilter(coll, filter, variables, collation)
  if (
    prepared.score === undefined &&
    (projection?.wantsTextScore === true || sort.some((k) => k.meta === 'textScore'))
  ) {
    throw badValue('query requires text score metadata, but it is not available')
  }
  return { coll, prepared, filter, sort, projection, skip, limit, batchSize }
}

export function openFind (q: FindQuery, cmd: Document, ctx: CommandContext): PlanExecutor | undefined {
  if (q.coll === undefined) return undefined
  return openQuery(q.coll, q.prepared, {
    sort: q.sort,
    skip: q.skip,
    limit: q.limit,
    deadline: ctx.deadline,
    hint: cmd.hint,
    sortMemoryLimit: sortMemoryLimit(cmd, ctx),
    planCache: ctx.explaining !== true,
    errorContext: 'Executor error during find command'
  })
}

const find: Handler = (cmd, ctx) => {
  const q = parseFind(cmd, ctx)
  const exec = openFind(q, cmd, ctx)
  ctx.server.opcounters.query++
  const ns = `${ctx.db}.${String(cmd.find)}`
  const singleBatch = cmd.singleBatch === true
  const batchSize = singleBatch && q.limit > 0 ? Math.min(q.limit, q.batchSize ?? q.limit) : q.batchSize
  if (exec === undefined) return ctx.server.cursors.firstBatch(ns, [], batchSize, singleBatch)
  const { projection, filter } = q
  const score = q.prepared.score
  const project = projection !== undefined ? (docs: Document[]) => projection.apply(docs, filter, score) : undefined
  return ctx.server.cursors.firstBatch(ns, findSource(exec, ctx.server.catalog, project), batchSize, singleBatch)
}

const getMore: Handler = (cmd, ctx) => {
  const id = cmd.getMore
  if (!isNumeric(id)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'getMore.getMore' is the wrong type, expected type 'long'"
    )
  }
  const name = collectionArg(cmd, 'collection')
  const batchSize = nonNegative(optionalInt(cmd, 'batchSize', 'getMore'), 'batchSize')
  if (cmd.maxTimeMS !== undefined && ctx.server.cursors.tailOf(toNumber(id)) === undefined) {
    throw badValue('cannot set maxTimeMS on getMore command for a non-awaitData cursor')
  }
  ctx.server.opcounters.getmore++
  return ctx.server.cursors.getMore(toNumber(id), `${ctx.db}.${name}`, batchSize)
}

const killCursors: Handler = (cmd, ctx) => {
  collectionArg(cmd, 'killCursors')
  const ids = cmd.cursors
  if (!Array.isArray(ids)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'killCursors.cursors' is missing but a required field"
    )
  }
  return ctx.server.cursors.kill(ids.map(toNumber))
}

export interface CountQuery {
  coll: Collection | undefined
  query: Document | undefined
  prepared: PreparedFilter
  skip: number
  limit: number
}

export function parseCount (cmd: Document, ctx: CommandContext): CountQuery {
  const name = collectionArg(cmd, 'count')
  const coll = ctx.server.catalog.get(ctx.db, name)
  const collation = effectiveCollation(cmd.collation, coll?.collation)
  const query = optionalDoc(cmd, 'query', 'count')
  const skip = nonNegative(optionalInt(cmd, 'skip', 'count'), 'skip') ?? 0
  const limit = Math.abs(optionalInt(cmd, 'limit', 'count') ?? 0)
  checkHint(coll, cmd.hint)
  return { coll, query, prepared: prepareFilter(coll, query, undefined, collation), skip, limit }
}

/** A count without a filter reads the collection's size, as mongod's metadata count does. */
export function isFastCount (q: CountQuery, cmd: Document): boolean {
  return q.coll !== undefined && (q.query === undefined || Object.keys(q.query).length === 0) && cmd.hint === undefined
}

export function openCount (q: CountQuery, cmd: Document, ctx: CommandContext): PlanExecutor | undefined {
  if (q.coll === undefined) return undefined
  return openQuery(q.coll, q.prepared, {
    skip: q.skip,
    limit: q.limit,
    deadline: ctx.deadline,
    hint: cmd.hint,
    count: true,
    planCache: ctx.explaining !== true,
    errorContext: 'Executor error during count command'
  })
}

export function countResult (exec: PlanExecutor): number {
  exec.drain()
  return (exec.root as unknown as { n: number }).n
}

const count: Handler = (cmd, ctx) => {
  const q = parseCount(cmd, ctx)
  if (isFastCount(q, cmd)) {
    const total = Math.max(0, (q.coll as Collection).size - q.skip)
    return { n: q.limit > 0 ? Math.min(q.limit, total) : total, ok: 1 }
  }
  const exec = openCount(q, cmd, ctx)
  return { n: exec === undefined ? 0 : countResult(exec), ok: 1 }
}

export function parseDistinct (
  cmd: Document,
  ctx: CommandContext
): { coll: Collection | undefined; key: string; prepared: PreparedFilter; query: Document | undefined } {
  const name = collectionArg(cmd, 'distinct')
  const key = cmd.key
  if (typeof key !== 'string') {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'distinct.key' is the wrong type, expected type 'string'"
    )
  }
  if (key.length === 0 || key.startsWith('$')) throw badValue("FieldPath field names may not start with '$'.")
  const coll = ctx.server.catalog.get(ctx.db, name)
  const collation = effectiveCollation(cmd.collation, coll?.collation)
  const query = optionalDoc(cmd, 'query', 'distinct')
  checkHint(coll, cmd.hint)
  return { coll, key, query, prepared: prepareFilter(coll, query, undefined, collation) }
}

const distinct: Handler = (cmd, ctx) => {
  const { coll, key, prepared } = parseDistinct(cmd, ctx)
  if (coll === undefined) return { values: [], ok: 1 }
  const exec = openQuery(coll, prepared, {
    deadline: ctx.deadline,
    hint: cmd.hint,
    errorContext: 'Executor error during distinct command'
  })
  const strCmp = prepared.collation?.compare
  const seen = new Map<string, unknown>()
  const values: unknown[] = []
  for (let d = exec.next(); d !== undefined; d = exec.next()) {
    for (const v of valuesAtPath(d, key)) {
      for (const x of Array.isArray(v) ? v : [v]) {
        // Under a collation, strings the collator equates are one value (the first seen).
        if (strCmp !== undefined && typeof x === 'string') {
          if (!values.some((y) => typeof y === 'string' && strCmp(x, y) === 0)) values.push(x)
          continue
        }
        const k = keyString(x)
        if (!seen.has(k)) {
          seen.set(k, x)
          values.push(x)
        }
      }
    }
  }
  return { values: values.sort((a, b) => compareValues(a, b, strCmp)), ok: 1 }
}

export const findCommands: Record<string, Handler> = { find, getMore, killCursors, count, distinct }
