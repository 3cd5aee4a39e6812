/**
 * bulkWrite (MongoDB 8.0's command, run on `admin`): inserts, updates and deletes across
 * collections in one command — the driver's `MongoClient.bulkWrite`. Each op runs through the
 * insert/update/delete handler of its namespace, so their checks and write errors are the same;
 * the results come back as a cursor of reply items (only the errors with `errorsOnly`).
 */
import type { Document } from 'bson'
import type { CommandContext, Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { codeName } from '../admin/error-codes.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { batchArg } from './write-common.js'
import { insertCommand } from './insert.js'
import { updateCommands } from './update.js'

interface Namespace {
  db: string
  coll: string
}

function namespaces (cmd: Document): Namespace[] {
  const list = batchArg(cmd, 'nsInfo', 'bulkWrite')
  return list.map((entry, i) => {
    const ns: unknown = isPlainDoc(entry) ? entry.ns : undefined
    const dot = typeof ns === 'string' ? ns.indexOf('.') : -1
    if (typeof ns !== 'string' || dot <= 0 || dot === ns.length - 1) {
      throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid namespace specified in nsInfo[${i}]`)
    }
    return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) }
  })
}

/** Which kind an op is and the namespace it names (`{ insert: 0, document }`, `{ update: 1, … }`, `{ delete: 0, … }`). */
function opKind (op: unknown, i: number, nsCount: number): { kind: 'insert' | 'update' | 'delete'; ns: number } {
  const kinds = isPlainDoc(op) ? (['insert', 'update', 'delete'] as const).filter((k) => op[k] !== undefined) : []
  if (kinds.length !== 1) {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', `BulkWrite ops entry ${i} must name one of insert, update or delete`)
  }
  const ns: unknown = (op as Document)[kinds[0]]
  if (!isNumeric(ns) || !Number.isInteger(toNumber(ns)) || toNumber(ns) < 0 || toNumber(ns) >= nsCount) {
    throw new CommandError(Codes.BadValue, 'BadValue', `BulkWrite ops entry ${i} has an invalid nsInfo index`)
  }
  return { kind: kinds[0], ns: toNumber(ns) }
}

/** Copies the fields `from` has, renamed as `names` says (`[from, to]`). */
function pick (from: Document, names: Array<[string, string]>): Document {
  const out: Document = {}
  for (const [a, b] of names) if (from[a] !== undefined) out[b] = from[a]
  return out
}

/** The single-statement insert/update/delete command an op stands for. */
function subCommand (op: Document, kind: 'insert' | 'update' | 'delete', coll: string, cmd: Document): Document {
  const shared = pick(cmd, [
    ['let', 'let'],
    ['bypassDocumentValidation', 'bypassDocumentValidation']
  ])
  if (kind === 'insert') return { insert: coll, documents: [op.document], ordered: true }
  if (kind === 'update') {
    const st = pick(op, [
      ['filter', 'q'],
      ['updateMods', 'u'],
      ['multi', 'multi'],
      ['upsert', 'upsert'],
      ['arrayFilters', 'arrayFilters'],
      ['hint', 'hint'],
      ['collation', 'collation'],
      ['constants', 'c'],
      ['sort', 'sort']
    ])
    return { update: coll, updates: [st], ordered: true, ...shared }
  }
  const filter = pick(op, [
    ['filter', 'q'],
    ['hint', 'hint'],
    ['collation', 'collation']
  ])
  const st = { ...filter, limit: op.multi === true ? 0 : 1 }
  return { delete: coll, deletes: [st], ordered: true, ...shared }
}

function failed (idx: number, code: number, errmsg: string, extra: Document = {}): Document {
  return { ok: 0, idx, code, codeName: codeName(code), errmsg, ...extra, n: 0 }
}

const HANDLERS = { insert: insertCommand, update: updateCommands.update, delete: updateCommands.delete }

export const bulkWriteCommand: Handler = (cmd, ctx: CommandContext) => {
  if (ctx.db !== 'admin') {
    throw new CommandError(Codes.Unauthorized, 'Unauthorized', 'bulkWrite may only be run against the admin database.')
  }
  const ops = batchArg(cmd, 'ops', 'bulkWrite')
  const ns = namespaces(cmd)
  const kinds = ops.map((op, i) => opKind(op, i, ns.length))
  const ordered = cmd.ordered !== false
  const errorsOnly = cmd.errorsOnly === true
  const items: Document[] = []
  const counts = { nErrors: 0, nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 }
  for (let i = 0; i < ops.length; i++) {
    const { kind, ns: at } = kinds[i]
    let item: Document
    try {
      const reply = HANDLERS[kind](subCommand(ops[i], kind, ns[at].coll, cmd), { ...ctx, db: ns[at].db })
      const error = (reply.writeErrors as Document[] | undefined)?.[0]
      if (error !== undefined) {
        const { index: _index, code, errmsg, ...extra } = error
        item = failed(i, code, errmsg, extra)
      } else if (kind === 'update') {
        const upserted = (reply.upserted as Document[] | undefined)?.[0]
        const created = upserted !== undefined ? { upserted: { _id: upserted._id } } : {}
        item = { ok: 1, idx: i, n: reply.n, nModified: reply.nModified, ...created }
        counts.nMatched += upserted !== undefined ? 0 : reply.n
        counts.nModified += reply.nModified
        counts.nUpserted += upserted !== undefined ? 1 : 0
      } else {
        item = { ok: 1, idx: i, n: reply.n }
        if (kind === 'insert') counts.nInserted += reply.n
        else counts.nDeleted += reply.n
      }
    } catch (e) {
      // A statement the handler refused as a whole (a bad field, a bad hint): this op's error.
      if (!(e instanceof CommandError)) throw e
      item = failed(i, e.code, e.message, e.extra)
    }
    if (item.ok === 0) counts.nErrors++
    if (item.ok === 0 || !errorsOnly) items.push(item)
    if (item.ok === 0 && ordered) break
  }
  const batchSize = isNumeric(cmd.cursor?.batchSize) ? toNumber(cmd.cursor.batchSize) : undefined
  const { cursor } = ctx.server.cursors.firstBatch('admin.$cmd.bulkWrite', items, batchSize)
  return { cursor, ...counts, ok: 1 }
}
