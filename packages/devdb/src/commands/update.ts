/** update and delete commands. */
import type { Document } from 'bson'
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { collectionArg } from './args.js'
import { batchArg, writeError, writeReply } from './write-common.js'
import { runUpdate } from '../engine/update/run-update.js'
import { prepareFilter, selectPrepared } from '../engine/select.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { checkHint } from './find.js'
import { letVariables } from '../query/let-vars.js'
import { effectiveCollation } from '../collation/collation.js'

function statementFilter (st: Document, field: string, cmdName: string): Document {
  const q = st[field]
  if (!isPlainDoc(q)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${cmdName}.${field}' is the wrong type, expected type 'object'`
    )
  }
  return q
}

const UPDATE_FIELDS = new Set([
  'q',
  'u',
  'c',
  'arrayFilters',
  'hint',
  'multi',
  'upsert',
  'upsertSupplied',
  'collation',
  'sampleId',
  '$_allowShardKeyUpdatesWithoutFullShardKeyInQuery'
])
const DELETE_FIELDS = new Set(['q', 'limit', 'hint', 'collation', 'sampleId'])

/**
 * mongod parses the whole command (IDL) before running a statement: a statement field it does not
 * know (`sort` on an update before 8.0, say) fails the command.
 */
function checkStatementFields (statements: Document[], known: Set<string>, path: string): void {
  for (const st of statements) {
    if (!isPlainDoc(st)) continue
    for (const k of Object.keys(st)) {
      if (!known.has(k)) {
        throw new CommandError(40415, 'Location40415', `BSON field '${path}.${k}' is an unknown field.`)
      }
    }
  }
}

const updateCommand: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'update')
  const statements = batchArg(cmd, 'updates', 'update')
  checkStatementFields(statements, UPDATE_FIELDS, 'update.updates')
  const ordered = cmd.ordered !== false
  const letVars = letVariables(cmd.let, 'update.let')
  let n = 0
  let nModified = 0
  const upserted: Document[] = []
  const writeErrors: Document[] = []
  for (let i = 0; i < statements.length; i++) {
    const st = statements[i]
    try {
      if (!isPlainDoc(st)) {
        throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'update statement must be an object')
      }
      const q = statementFilter(st, 'q', 'UpdateOpEntry')
      if (st.u === undefined) {
        throw new CommandError(40414, 'Location40414', "BSON field 'update.updates.u' is missing but a required field")
      }
      const existing = ctx.server.catalog.get(ctx.db, name)
      const collation = effectiveCollation(st.collation, existing?.collation, 'UpdateOpEntry.collation')
      checkHint(existing, st.hint)
      const variables = letVariables(st.c, 'UpdateOpEntry.c', letVars)
      // Validate the filter before creating the collection so a bad filter leaves no trace.
      const prepared = prepareFilter(existing, q, variables, collation)
      if (existing === undefined && st.upsert !== true) continue
      const coll = ctx.server.catalog.getOrCreate(ctx.db, name, ctx.journal)
      const r = runUpdate(
        coll,
        {
          q,
          u: st.u,
          multi: st.multi === true,
          upsert: st.upsert === true,
          arrayFilters: st.arrayFilters as Document[] | undefined,
          deadline: ctx.deadline,
          hint: st.hint,
          collation,
          variables,
          ...(existing !== undefined ? { prepared } : {})
        },
        ctx.journal
      )
      n += r.n
      nModified += r.nModified
      if (r.upsertedId !== undefined) upserted.push({ index: i, _id: r.upsertedId })
    } catch (e) {
      writeErrors.push(writeError(i, e))
      if (ordered) break
    }
  }
  ctx.server.opcounters.update += statements.length
  return writeReply(upserted.length > 0 ? { n, nModified, upserted } : { n, nModified }, writeErrors)
}

const deleteCommand: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'delete')
  const statements = batchArg(cmd, 'deletes', 'delete')
  checkStatementFields(statements, DELETE_FIELDS, 'delete.deletes')
  const ordered = cmd.ordered !== false
  const variables = letVariables(cmd.let, 'delete.let')
  let n = 0
  const writeErrors: Document[] = []
  for (let i = 0; i < statements.length; i++) {
    const st = statements[i]
    try {
      if (!isPlainDoc(st)) {
        throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'delete statement must be an object')
      }
      const q = statementFilter(st, 'q', 'DeleteOpEntry')
      const limit = isNumeric(st.limit) ? toNumber(st.limit) : undefined
      if (limit === undefined) {
        throw new CommandError(
          40414,
          'Location40414',
          "BSON field 'delete.deletes.limit' is missing but a required field"
        )
      }
      if (limit !== 0 && limit !== 1) {
        throw new CommandError(
          Codes.FailedToParse,
          'FailedToParse',
          `The limit field in delete objects must be 0 or 1. Got ${limit}`
        )
      }
      const coll = ctx.server.catalog.get(ctx.db, name)
      const collation = effectiveCollation(st.collation, coll?.collation, 'DeleteOpEntry.collation')
      checkHint(coll, st.hint)
      const prepared = prepareFilter(coll, q, variables, collation)
      if (coll === undefined) continue
      const { docs } = selectPrepared(coll, prepared, { limit, deadline: ctx.deadline, hint: st.hint })
      for (const d of docs) {
        coll.remove(d)
        ctx.journal.push({ t: 'del', db: ctx.db, coll: name, id: d._id })
        n++
      }
    } catch (e) {
      writeErrors.push(writeError(i, e))
      if (ordered) break
    }
  }
  ctx.server.opcounters.delete += statements.length
  return writeReply({ n }, writeErrors)
}

export const updateCommands: Record<string, Handler> = { update: updateCommand, delete: deleteCommand }
