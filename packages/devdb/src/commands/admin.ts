/** Database and collection catalog commands. */
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { UUID, type Document } from 'bson'
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { collectionArg, optionalDoc } from './args.js'
import { compileFilter } from '../query/options.js'
import { validateFilter } from '../query/validate.js'
import { assertValidDbName } from '../engine/catalog.js'
import { parseCollation } from '../collation/collation.js'
import { isPlainDoc } from '../bson/paths.js'

const uuids = new WeakMap<object, UUID>()
function uuidOf (o: object): UUID {
  let u = uuids.get(o)
  if (u === undefined) uuids.set(o, (u = new UUID()))
  return u
}

const UNSUPPORTED_CREATE = [
  'capped',
  'validator',
  'timeseries',
  'clusteredIndex',
  'viewOn',
  'pipeline',
  'encryptedFields',
  'expireAfterSeconds',
  'size',
  'max'
]
const IGNORED = new Set([
  'create',
  'lsid',
  '$db',
  '$clusterTime',
  'writeConcern',
  'readConcern',
  'maxTimeMS',
  'txnNumber',
  'autocommit',
  'startTransaction',
  '$readPreference',
  'comment',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'validationLevel',
  'validationAction',
  'storageEngine',
  'indexOptionDefaults',
  'autoIndexId',
  'idIndex',
  'collation',
  'changeStreamPreAndPostImages'
])

export const adminCommands: Record<string, Handler> = {
  listDatabases: (cmd, ctx) => {
    const filter = optionalDoc(cmd, 'filter', 'listDatabases')
    if (filter !== undefined) validateFilter(filter)
    const match = compileFilter(filter)
    const databases: Document[] = []
    let total = 0
    for (const [name, colls] of [...ctx.server.catalog.dbs.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      let size = 0
      for (const c of colls.values()) size += c.size * 64
      const entry = cmd.nameOnly === true ? { name } : { name, sizeOnDisk: Math.max(size, 4096), empty: false }
      if (!match(entry)) continue
      total += entry.sizeOnDisk ?? 0
      databases.push(entry)
    }
    if (cmd.nameOnly === true) return { databases, ok: 1 }
    return { databases, totalSize: total, totalSizeMb: Math.round(total / 1048576), ok: 1 }
  },

  listCollections: (cmd, ctx) => {
    const filter = optionalDoc(cmd, 'filter', 'listCollections')
    if (filter !== undefined) validateFilter(filter)
    const match = compileFilter(filter)
    const nameOnly = cmd.nameOnly === true
    const out: Document[] = []
    const colls = ctx.server.catalog
      .collections(ctx.db)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const c of colls) {
      const full: Document = {
        name: c.name,
        type: 'collection',
        options: c.options,
        info: { readOnly: false, uuid: uuidOf(c) },
        idIndex: { v: 2, key: { _id: 1 }, name: '_id_' }
      }
      if (!match(full)) continue
      out.push(nameOnly ? { name: c.name, type: 'collection' } : full)
    }
    const batchSize = isNumeric(cmd.cursor?.batchSize) ? toNumber(cmd.cursor.batchSize) : undefined
    return ctx.server.cursors.firstBatch(`${ctx.db}.$cmd.listCollections`, out, batchSize)
  },

  create: (cmd, ctx) => {
    const name = collectionArg(cmd, 'create')
    for (const opt of UNSUPPORTED_CREATE) {
      if (cmd[opt] !== undefined && cmd[opt] !== false) {
        throw new CommandError(
          Codes.NotImplemented,
          'NotImplemented',
          `devdb does not support the '${opt}' collection option`
        )
      }
    }
    for (const k of Object.keys(cmd)) {
      if (!IGNORED.has(k) && !UNSUPPORTED_CREATE.includes(k)) {
        throw new CommandError(40415, 'Location40415', `BSON field 'create.${k}' is an unknown field.`)
      }
    }
    const existing = ctx.server.catalog.get(ctx.db, name)
    if (existing !== undefined) {
      throw new CommandError(Codes.NamespaceExists, 'NamespaceExists', `Collection ${ctx.db}.${name} already exists.`)
    }
    // A default collation (validated here; `simple` is the same as none) applies to its indexes and queries.
    const collation = cmd.collation !== undefined ? parseCollation(cmd.collation, 'create.collation') : undefined
    const options: Document = collation !== undefined ? { collation: collation.spec } : {}
    const images = prePostImagesOption(cmd.changeStreamPreAndPostImages)
    if (images !== undefined) options.changeStreamPreAndPostImages = images
    ctx.server.catalog.create(ctx.db, name, options, ctx.journal)
    return { ok: 1 }
  },

  drop: (cmd, ctx) => {
    const name = collectionArg(cmd, 'drop')
    const c = ctx.server.catalog.get(ctx.db, name)
    if (c === undefined) return { ok: 1 }
    const nIndexesWas = c.indexes.length
    ctx.server.catalog.drop(ctx.db, name, ctx.journal)
    return { nIndexesWas, ns: `${ctx.db}.${name}`, ok: 1 }
  },

  dropDatabase: (_cmd, ctx) => {
    assertValidDbName(ctx.db)
    ctx.server.catalog.dropDatabase(ctx.db, ctx.journal)
    return { dropped: ctx.db, ok: 1 }
  }
}

/** `changeStreamPreAndPostImages: { enabled }`: change events of the collection keep both images (change-streams/event.ts). */
export function prePostImagesOption (v: unknown, command = 'create'): Document | undefined {
  if (v === undefined) return undefined
  if (!isPlainDoc(v) || typeof v.enabled !== 'boolean' || Object.keys(v).length !== 1) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${command}.changeStreamPreAndPostImages' must be { enabled: <bool> }`
    )
  }
  return { enabled: v.enabled }
}
