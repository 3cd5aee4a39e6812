/** renameCollection within one database (admin command, like mongod). */
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { buildIndex } from '../engine/index-build.js'
import type { StoredIndex } from '../storage/types.js'

function splitNs (ns: unknown, field: string): [string, string] {
  if (typeof ns !== 'string' || !ns.includes('.')) {
    throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid ${field} namespace: ${String(ns)}`)
  }
  const i = ns.indexOf('.')
  return [ns.slice(0, i), ns.slice(i + 1)]
}

export const renameCollectionCommand: Handler = (cmd, ctx) => {
  if (ctx.db !== 'admin') {
    throw new CommandError(
      Codes.Unauthorized,
      'Unauthorized',
      'renameCollection may only be run against the admin database.'
    )
  }
  const [fromDb, fromColl] = splitNs(cmd.renameCollection, 'source')
  const [toDb, toColl] = splitNs(cmd.to, 'target')
  if (fromDb !== toDb) {
    throw new CommandError(
      Codes.NotImplemented,
      'NotImplemented',
      'devdb does not support renaming a collection across databases'
    )
  }
  const catalog = ctx.server.catalog
  const source = catalog.get(fromDb, fromColl)
  if (source === undefined) {
    throw new CommandError(
      Codes.NamespaceNotFound,
      'NamespaceNotFound',
      `Source collection ${fromDb}.${fromColl} does not exist`
    )
  }
  if (fromColl === toColl) {
    throw new CommandError(Codes.IllegalOperation, 'IllegalOperation', "Can't rename a collection to itself")
  }
  if (catalog.get(toDb, toColl) !== undefined) {
    if (cmd.dropTarget !== true) {
      throw new CommandError(Codes.NamespaceExists, 'NamespaceExists', 'target namespace exists')
    }
    catalog.drop(toDb, toColl, ctx.journal)
  }
  // Validate the new name before touching anything.
  const target = catalog.create(toDb, toColl, source.options, ctx.journal)
  for (const ix of source.userIndexes) {
    target.addIndex(buildIndex(ix.spec))
    ctx.journal.push({ t: 'createIndex', db: toDb, coll: toColl, index: { ...ix.spec } as StoredIndex })
  }
  for (const d of source.documents()) {
    target.insert(d)
    ctx.journal.push({ t: 'put', db: toDb, coll: toColl, doc: d })
  }
  catalog.drop(fromDb, fromColl, ctx.journal)
  return { ok: 1 }
}
