/** insert: ordered/unordered batches with per-document write errors. */
import type { Document } from 'bson'
import type { Handler } from './context.js'
import { collectionArg } from './args.js'
import { batchArg, prepareForStorage, writeError, writeReply } from './write-common.js'

export const insertCommand: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'insert')
  const docs = batchArg(cmd, 'documents', 'insert')
  const ordered = cmd.ordered !== false
  const coll = ctx.server.catalog.getOrCreate(ctx.db, name, ctx.journal)
  const writeErrors: Document[] = []
  let n = 0
  for (let i = 0; i < docs.length; i++) {
    try {
      const doc = prepareForStorage(docs[i])
      coll.insert(doc)
      ctx.journal.push({ t: 'put', db: ctx.db, coll: name, doc })
      n++
    } catch (e) {
      writeErrors.push(writeError(i, e))
      if (ordered) break
    }
  }
  ctx.server.opcounters.insert += docs.length
  return writeReply({ n }, writeErrors)
}
