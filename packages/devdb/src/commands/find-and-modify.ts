/** findAndModify: single-document update/remove/upsert returning the before or after image. */
import type { Document } from 'bson'
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { collectionArg, optionalDoc } from './args.js'
import { parseSort } from '../query/sort.js'
import { compileProjection } from '../query/projection.js'
import { prepareFilter, selectPrepared } from '../engine/select.js'
import { runUpdate } from '../engine/update/run-update.js'
import { checkHint } from './find.js'
import { letVariables } from '../query/let-vars.js'
import { effectiveCollation } from '../collation/collation.js'

const failed = (msg: string): CommandError => new CommandError(Codes.FailedToParse, 'FailedToParse', msg)

export const findAndModifyCommand: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, Object.keys(cmd)[0])
  const query = optionalDoc(cmd, 'query', 'findAndModify') ?? {}
  const sort = parseSort(optionalDoc(cmd, 'sort', 'findAndModify'))
  const variables = letVariables(cmd.let, 'findAndModify.let')
  const projection = compileProjection(optionalDoc(cmd, 'fields', 'findAndModify'), variables)
  const remove = cmd.remove === true
  const upsert = cmd.upsert === true
  const returnNew = cmd.new === true
  const hasUpdate = cmd.update !== undefined
  if (remove && hasUpdate) throw failed('Cannot specify both an update and remove=true')
  if (!remove && !hasUpdate) throw failed('Either an update or remove=true must be specified')
  if (remove && upsert) throw failed('Cannot specify both upsert=true and remove=true ')
  if (remove && returnNew) {
    throw failed("Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
  }
  const existing = ctx.server.catalog.get(ctx.db, name)
  const collation = effectiveCollation(cmd.collation, existing?.collation)
  checkHint(existing, cmd.hint)
  const project = (d: Document | undefined): Document | null => {
    if (d === undefined) return null
    return projection !== undefined ? projection.apply([d], query)[0] : d
  }
  if (remove) {
    const prepared = prepareFilter(existing, query, variables, collation)
    if (existing === undefined) return { lastErrorObject: { n: 0 }, value: null, ok: 1 }
    const { docs } = selectPrepared(existing, prepared, { limit: 1, sort, deadline: ctx.deadline, hint: cmd.hint })
    const doc = docs[0]
    if (doc === undefined) return { lastErrorObject: { n: 0 }, value: null, ok: 1 }
    existing.remove(doc)
    ctx.journal.push({ t: 'del', db: ctx.db, coll: name, id: doc._id })
    ctx.server.opcounters.delete++
    return { lastErrorObject: { n: 1 }, value: project(doc), ok: 1 }
  }
  prepareFilter(existing, query, variables, collation)
  if (existing === undefined && !upsert) {
    return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 }
  }
  const coll = ctx.server.catalog.getOrCreate(ctx.db, name, ctx.journal)
  const r = runUpdate(
    coll,
    {
      q: query,
      u: cmd.update,
      upsert,
      arrayFilters: cmd.arrayFilters,
      sort,
      deadline: ctx.deadline,
      hint: cmd.hint,
      collation,
      variables
    },
    ctx.journal
  )
  ctx.server.opcounters.update++
  const lastErrorObject: Document = { n: r.n, updatedExisting: r.upsertedId === undefined && r.n > 0 }
  if (r.upsertedId !== undefined) lastErrorObject.upserted = r.upsertedId
  const value = returnNew ? project(r.after) : r.upsertedId !== undefined ? null : project(r.before)
  return { lastErrorObject, value, ok: 1 }
}
