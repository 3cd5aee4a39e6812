import type { Collection } from 'mongodb'
import type { PlannedWrite, RecordStatement } from './types.js'

/**
 * A plan's write given once, as its statement: `write` runs it through the collection (the
 * statement-by-statement path) and `statement` lets a server with the bulkWrite command take it
 * with the effect documents (one-command.ts). `ids` (hex): the records it changes when it lands —
 * an insert always, an update or delete only when its guard matched.
 */
export function fromStatement (
  coll: Collection<any>,
  statement: RecordStatement,
  ids: string[]
): Pick<PlannedWrite, 'write' | 'statement'> {
  const write: PlannedWrite['write'] = async (session) => {
    if ('insertOne' in statement) {
      await coll.insertOne({ ...statement.insertOne }, { session })
      return ids
    }
    if ('insertMany' in statement) {
      await coll.insertMany(
        statement.insertMany.map((d) => ({ ...d })),
        { ordered: true, session }
      )
      return ids
    }
    if ('updateOne' in statement) {
      const { filter, update } = statement.updateOne
      return (await coll.updateOne(filter, update, { session })).matchedCount === 1 ? ids : []
    }
    return (await coll.deleteOne(statement.deleteOne.filter, { session })).deletedCount === 1 ? ids : []
  }
  return { write, statement }
}
