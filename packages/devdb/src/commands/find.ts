/** find, getMore, killCursors, count and distinct. */
import type { Document } from 'bson'
import type { Handler } from './context.js'
import { CommandError, Codes, badValue } from '../errors.js'
import { collectionArg, nonNegative, optionalDoc, optionalInt } from './args.js'
import { select } from '../engine/select.js'
import { parseSort } from '../query/sort.js'
import { compileProjection } from '../query/projection.js'
import { isNumeric, toNumber, compareValues } from '../engine/bson-order.js'
import { valuesAtPath } from '../engine/paths.js'
import { keyString } from '../engine/key-string.js'
import type { Collection } from '../engine/collection.js'

export function checkCollation (cmd: Document): void {
  const c = cmd.collation
  if (c === undefined || c === null) return
  if (typeof c === 'object' && (c as Document).locale === 'simple') return
  throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'devdb supports only the simple collation')
}

export function checkHint (coll: Collection | undefined, hint: unknown): void {
  if (hint === undefined || hint === null) return
  if (coll === undefined) return
  if (typeof hint === 'string') {
    if (coll.findIndex(hint) === undefined) throw badValue('hint provided does not correspond to an existing index')
    return
  }
  if (typeof hint === 'object') {
    const spec = JSON.stringify(hint)
    if (Object.keys(hint).length === 1 && '$natural' in hint) return
    if (!coll.indexes.some(ix => JSON.stringify(ix.key) === spec)) throw badValue('hint provided does not correspond to an existing index')
  }
}

const find: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'find')
  if (cmd.tailable === true || cmd.awaitData === true) throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'tailable cursors are not supported by devdb')
  if (cmd.min !== undefined || cmd.max !== undefined || cmd.returnKey === true || cmd.showRecordId === true) {
    throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'find min/max/returnKey/showRecordId are not supported by devdb')
  }
  checkCollation(cmd)
  const filter = optionalDoc(cmd, 'filter', 'find')
  const sort = parseSort(optionalDoc(cmd, 'sort', 'find'))
  const projection = compileProjection(optionalDoc(cmd, 'projection', 'find'))
  const skip = nonNegative(optionalInt(cmd, 'skip', 'find'), 'skip') ?? 0
  const limit = nonNegative(optionalInt(cmd, 'limit', 'find'), 'limit') ?? 0
  const batchSize = nonNegative(optionalInt(cmd, 'batchSize', 'find'), 'batchSize')
  const coll = ctx.server.catalog.get(ctx.db, name)
  checkHint(coll, cmd.hint)
  const variables = optionalDoc(cmd, 'let', 'find')
  const { docs, score } = select(coll, filter, { sort, skip, limit, deadline: ctx.deadline }, variables)
  if (projection?.wantsTextScore === true && score === undefined) {
    throw badValue('query requires text score metadata, but it is not available')
  }
  if (sort.some(k => k.meta === 'textScore') && score === undefined) {
    throw badValue('query requires text score metadata, but it is not available')
  }
  const out = projection !== undefined ? projection.apply(docs, filter, score) : docs
  ctx.server.opcounters.query++
  const singleBatch = cmd.singleBatch === true
  return ctx.server.cursors.firstBatch(`${ctx.db}.${name}`, out, singleBatch && limit > 0 ? Math.min(limit, batchSize ?? limit) : batchSize, singleBatch)
}

const getMore: Handler = (cmd, ctx) => {
  const id = cmd.getMore
  if (!isNumeric(id)) throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', "BSON field 'getMore.getMore' is the wrong type, expected type 'long'")
  const name = collectionArg(cmd, 'collection')
  const batchSize = nonNegative(optionalInt(cmd, 'batchSize', 'getMore'), 'batchSize')
  if (cmd.maxTimeMS !== undefined) throw badValue('cannot set maxTimeMS on getMore command for a non-awaitData cursor')
  ctx.server.opcounters.getmore++
  return ctx.server.cursors.getMore(toNumber(id), `${ctx.db}.${name}`, batchSize)
}

const killCursors: Handler = (cmd, ctx) => {
  collectionArg(cmd, 'killCursors')
  const ids = cmd.cursors
  if (!Array.isArray(ids)) throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', "BSON field 'killCursors.cursors' is missing but a required field")
  return ctx.server.cursors.kill(ids.map(toNumber))
}

const count: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'count')
  checkCollation(cmd)
  const query = optionalDoc(cmd, 'query', 'count')
  const skip = nonNegative(optionalInt(cmd, 'skip', 'count'), 'skip') ?? 0
  const limit = Math.abs(optionalInt(cmd, 'limit', 'count') ?? 0)
  const coll = ctx.server.catalog.get(ctx.db, name)
  checkHint(coll, cmd.hint)
  if (coll !== undefined && (query === undefined || Object.keys(query).length === 0)) {
    const total = Math.max(0, coll.docs.size - skip)
    return { n: limit > 0 ? Math.min(limit, total) : total, ok: 1 }
  }
  const { docs } = select(coll, query, { skip, limit, deadline: ctx.deadline })
  return { n: docs.length, ok: 1 }
}

const distinct: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'distinct')
  checkCollation(cmd)
  const key = cmd.key
  if (typeof key !== 'string') throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', "BSON field 'distinct.key' is the wrong type, expected type 'string'")
  if (key.length === 0 || key.startsWith('$')) throw badValue(`FieldPath field names may not start with '$'.`)
  const query = optionalDoc(cmd, 'query', 'distinct')
  const coll = ctx.server.catalog.get(ctx.db, name)
  const { docs } = select(coll, query, { deadline: ctx.deadline })
  const seen = new Map<string, unknown>()
  for (const d of docs) {
    for (const v of valuesAtPath(d, key)) {
      const vals = Array.isArray(v) ? v : [v]
      for (const x of vals) {
        const k = keyString(x)
        if (!seen.has(k)) seen.set(k, x)
      }
    }
  }
  const values = [...seen.values()].sort(compareValues)
  return { values, ok: 1 }
}

export const findCommands: Record<string, Handler> = { find, getMore, killCursors, count, distinct }
