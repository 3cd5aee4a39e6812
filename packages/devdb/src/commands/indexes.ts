/** createIndexes, listIndexes, dropIndexes. */
import { isNumeric, toNumber } from '../bson/bson-order.js'
import type { Document } from 'bson'
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { collectionArg } from './args.js'
import { buildIndex, sameOptions, TextIndexDef } from '../engine/index-build.js'
import { isPlainDoc } from '../bson/paths.js'
import type { StoredIndex } from '../storage/types.js'
import { sameCollation } from '../collation/collation.js'

function specString (d: Document): string {
  return JSON.stringify(d)
    .replace(/"(\w+)":/g, '$1: ')
    .replace(/,/g, ', ')
    .replace(/{/g, '{ ')
    .replace(/}/g, ' }')
}

const createIndexes: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'createIndexes')
  const specs = cmd.indexes
  if (!Array.isArray(specs)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'createIndexes.indexes' is the wrong type, expected type 'array'"
    )
  }
  if (specs.length === 0) {
    throw new CommandError(Codes.BadValue, 'BadValue', 'Must specify at least one index to create')
  }
  // Validate everything first: createIndexes is all-or-nothing.
  const current = ctx.server.catalog.get(ctx.db, name)
  const built = specs.map((s) => {
    if (!isPlainDoc(s)) {
      throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'index specification must be an object')
    }
    // An index without its own collation takes the collection's default, as in mongod.
    const isText = Object.values(isPlainDoc(s.key) ? s.key : {}).includes('text')
    return buildIndex(
      s.collation === undefined && current?.collation !== undefined && !isText
        ? { ...s, collation: current.collation.spec }
        : s
    )
  })
  const existed = current !== undefined
  const coll = ctx.server.catalog.getOrCreate(ctx.db, name, ctx.journal)
  const before = coll.indexes.length
  const added = []
  try {
    for (const ix of built) {
      const sameName = coll.findIndex(ix.name)
      // Indexes on the same keys with different collations are distinct indexes.
      const sameKey = coll.indexes.find(
        (e) =>
          JSON.stringify(e.key) === JSON.stringify(ix.key) &&
          sameCollation(e.collation, ix.collation) &&
          (!(e instanceof TextIndexDef) || ix instanceof TextIndexDef)
      )
      if (sameName !== undefined) {
        if (JSON.stringify(sameName.key) !== JSON.stringify(ix.key)) {
          throw new CommandError(
            Codes.IndexKeySpecsConflict,
            'IndexKeySpecsConflict',
            `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${specString(ix.spec)}, existing index: ${specString(sameName.spec)}`
          )
        }
        if (!sameOptions(sameName.spec, ix.spec)) {
          throw new CommandError(
            Codes.IndexOptionsConflict,
            'IndexOptionsConflict',
            `An equivalent index already exists with the same name but different options. Requested index: ${specString(ix.spec)}, existing index: ${specString(sameName.spec)}`
          )
        }
        continue
      }
      if (sameKey !== undefined && sameOptions(sameKey.spec, ix.spec)) {
        throw new CommandError(
          Codes.IndexOptionsConflict,
          'IndexOptionsConflict',
          `Index already exists with a different name: ${sameKey.name}`
        )
      }
      if (sameKey !== undefined && sameKey.name === '_id_') {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          "The field 'unique' is not valid for an _id index specification."
        )
      }
      if (sameKey !== undefined) {
        throw new CommandError(
          Codes.IndexOptionsConflict,
          'IndexOptionsConflict',
          `An equivalent index already exists with a different name and options. Requested index: ${specString(ix.spec)}, existing index: ${specString(sameKey.spec)}`
        )
      }
      if (ix instanceof TextIndexDef && coll.indexes.some((e) => e instanceof TextIndexDef)) {
        const other = coll.indexes.find((e) => e instanceof TextIndexDef)
        throw new CommandError(
          Codes.IndexOptionsConflict,
          'IndexOptionsConflict',
          `An equivalent index already exists with a different name and options. Requested index: ${specString(ix.spec)}, existing index: ${specString(other?.spec ?? {})}`
        )
      }
      coll.addIndex(ix)
      added.push(ix)
    }
  } catch (e) {
    for (const ix of added) coll.dropIndex(ix.name)
    if (!existed && coll.size === 0 && added.length === 0) ctx.server.catalog.drop(ctx.db, name, ctx.journal)
    throw e
  }
  for (const ix of added) {
    ctx.journal.push({ t: 'createIndex', db: ctx.db, coll: name, index: { ...ix.spec } as StoredIndex })
  }
  const reply: Document = { numIndexesBefore: before, numIndexesAfter: coll.indexes.length }
  if (!existed) reply.createdCollectionAutomatically = true
  else reply.createdCollectionAutomatically = false
  if (added.length === 0) reply.note = 'all indexes already exist'
  reply.ok = 1
  return reply
}

const listIndexes: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, 'listIndexes')
  const coll = ctx.server.catalog.get(ctx.db, name)
  if (coll === undefined) {
    throw new CommandError(Codes.NamespaceNotFound, 'NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`)
  }
  const batchSize = isNumeric(cmd.cursor?.batchSize) ? toNumber(cmd.cursor.batchSize) : undefined
  return ctx.server.cursors.firstBatch(
    `${ctx.db}.$cmd.listIndexes.${name}`,
    coll.indexes.map((ix) => ({ ...ix.spec })),
    batchSize
  )
}

const dropIndexes: Handler = (cmd, ctx) => {
  const name = collectionArg(cmd, Object.keys(cmd)[0])
  const coll = ctx.server.catalog.get(ctx.db, name)
  if (coll === undefined) {
    throw new CommandError(Codes.NamespaceNotFound, 'NamespaceNotFound', `ns not found ${ctx.db}.${name}`)
  }
  const target = cmd.index
  const nIndexesWas = coll.indexes.length
  let names: string[]
  if (target === '*') names = coll.userIndexes.map((ix) => ix.name)
  else if (typeof target === 'string') names = [target]
  else if (Array.isArray(target)) names = target.map(String)
  else if (isPlainDoc(target)) {
    const ks = JSON.stringify(target)
    const found = coll.indexes.filter((ix) => JSON.stringify(ix.key) === ks)
    if (found.length === 0) {
      throw new CommandError(Codes.IndexNotFound, 'IndexNotFound', `can't find index with key: ${specString(target)}`)
    }
    if (found.length > 1) {
      throw new CommandError(
        2,
        'BadValue',
        `${found.length} indexes found for key: ${specString(target)}, identify by name instead. Conflicting indexes: ${found.map((f) => specString(f.spec)).join(', ')}`
      )
    }
    names = [found[0].name]
  } else {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'dropIndexes.index' is the wrong type, expected types '[string, object, array]'"
    )
  }
  for (const n of names) {
    if (n === '_id_') throw new CommandError(Codes.InvalidOptions, 'InvalidOptions', 'cannot drop _id index')
    if (coll.findIndex(n) === undefined) {
      throw new CommandError(Codes.IndexNotFound, 'IndexNotFound', `index not found with name [${n}]`)
    }
  }
  for (const n of names) {
    coll.dropIndex(n)
    ctx.journal.push({ t: 'dropIndex', db: ctx.db, coll: name, name: n })
  }
  const reply: Document = { nIndexesWas, ok: 1 }
  if (target === '*') reply.msg = 'non-_id indexes dropped for collection'
  return reply
}

export const indexCommands: Record<string, Handler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes
}
