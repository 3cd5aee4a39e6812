/**
 * `dbStats`, `collStats` and `$collStats`' storage statistics, measured on the data devdb holds
 * (measure.ts):
 * `size` is the BSON size of the documents, an index's size the BSON size of its entries (key
 * values and record id). devdb keeps both uncompressed in memory, so `storageSize` equals `size`
 * and nothing is free; the journal and snapshot files are per server, not per collection.
 */
import { statfsSync } from 'node:fs'
import type { Document } from 'bson'
import type { Collection } from '../engine/collection.js'
import type { CommandContext } from '../commands/context.js'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { typeLabel } from '../commands/args.js'
import { sizesOf } from './measure.js'

/** A `scale` argument: a positive number, 1 by default (IDL's `gte: 1`). */
export function parseScale (v: unknown, field = 'scale'): number {
  if (v === undefined) return 1
  if (!isNumeric(v)) {
    throw adminError(
      Codes.TypeMismatch,
      `BSON field '${field}' is the wrong type '${typeLabel(v)}', expected types '[long, int, decimal, double]'`
    )
  }
  const n = Math.trunc(toNumber(v))
  if (n < 1) throw adminError(51024, `BSON field '${field}' value must be >= 1, actual value '${n}'`)
  return n
}

/** The storage statistics of one collection (collStats' body, `$collStats`' `storageStats`). */
export function storageStats (c: Collection, scale: number): Document {
  const s = sizesOf(c)
  const scaled = (n: number): number => Math.floor(n / scale)
  const indexSizes: Document = {}
  for (const [name, bytes] of Object.entries(s.indexSizes)) indexSizes[name] = scaled(bytes)
  return {
    size: scaled(s.size),
    count: s.count,
    avgObjSize: s.count > 0 ? Math.floor(s.size / s.count) : 0,
    numOrphanDocs: 0,
    storageSize: scaled(s.size),
    freeStorageSize: 0,
    capped: false,
    nindexes: c.indexes.length,
    indexBuilds: [],
    totalIndexSize: scaled(s.totalIndexSize),
    totalSize: scaled(s.size + s.totalIndexSize),
    indexSizes,
    scaleFactor: scale
  }
}

export function dbStats (cmd: Document, ctx: CommandContext, dbPath: string | undefined): Document {
  const scale = parseScale(cmd.scale)
  const colls = ctx.server.catalog.collections(ctx.db)
  let objects = 0
  let dataSize = 0
  let indexes = 0
  let indexSize = 0
  for (const c of colls) {
    const s = sizesOf(c)
    objects += s.count
    dataSize += s.size
    indexes += c.indexes.length
    indexSize += s.totalIndexSize
  }
  const scaled = (n: number): number => Math.floor(n / scale)
  const reply: Document = {
    db: ctx.db,
    collections: colls.length,
    views: 0,
    objects,
    avgObjSize: objects > 0 ? dataSize / objects : 0,
    dataSize: scaled(dataSize),
    storageSize: scaled(dataSize),
    indexes,
    indexSize: scaled(indexSize),
    totalSize: scaled(dataSize + indexSize),
    scaleFactor: scale
  }
  if (cmd.freeStorage === true || cmd.freeStorage === 1) {
    Object.assign(reply, { freeStorageSize: 0, indexFreeStorageSize: 0, totalFreeStorageSize: 0 })
  }
  // mongod reports the filesystem of its dbPath; in memory there is none (as mongod's ephemeral engines)
  if (dbPath !== undefined) {
    const fs = statfsSync(dbPath)
    reply.fsUsedSize = scaled((fs.blocks - fs.bfree) * fs.bsize)
    reply.fsTotalSize = scaled(fs.blocks * fs.bsize)
  }
  return { ...reply, ok: 1 }
}
