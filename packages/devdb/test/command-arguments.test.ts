/**
 * Commands with arguments of the wrong type or shape answer mongod 7.0's code and message, so a
 * driver or an application that branches on them behaves as it would against mongod.
 */
import t, { type Test } from 'tap'
import type { Document } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t, { replSet: false })
await h.db.collection('c').insertMany([
  { _id: 1, a: [1, 2], k: 'x' },
  { _id: 2, a: [3], k: 'y' }
] as never)

interface Failure {
  code?: number
  codeName?: string
  message: string
}

/** The command's failure: the error it throws, or its first write error (ok:1 replies carry those). */
async function failure (cmd: Document, db = h.db): Promise<Failure> {
  let reply: Document
  try {
    reply = await db.command(cmd)
  } catch (e) {
    const err = e as Failure
    return { code: err.code, codeName: err.codeName, message: err.message }
  }
  const we = (reply.writeErrors as Document[] | undefined)?.[0]
  if (we === undefined) throw new Error(`expected ${JSON.stringify(cmd)} to fail`)
  return { code: we.code, message: we.errmsg }
}

async function refuses (t: Test, cmd: Document, code: number, message: string, db = h.db): Promise<void> {
  const f = await failure(cmd, db)
  t.same({ code: f.code, message: f.message }, { code, message }, JSON.stringify(cmd))
}

t.test('collection names and namespaces', async (t) => {
  await refuses(t, { find: 5 }, 73, 'collection name has invalid type int')
  await refuses(t, { find: '' }, 73, "Invalid namespace specified 'find.'")
  const admin = h.client.db('admin')
  await refuses(
    t,
    { renameCollection: 'test.c', to: 'test.d' },
    13,
    'renameCollection may only be run against the admin database.'
  )
  await refuses(t, { renameCollection: 'nodot', to: 'test.d' }, 73, 'Invalid source namespace: nodot', admin)
  await refuses(t, { renameCollection: 'test.c', to: 5 }, 73, 'Invalid target namespace: 5', admin)
  await refuses(
    t,
    { renameCollection: 'test.c', to: 'other.c' },
    238,
    'devdb does not support renaming a collection across databases',
    admin
  )
  await refuses(t, { renameCollection: 'test.c', to: 'test.c' }, 20, "Can't rename a collection to itself", admin)
  t.equal(await h.db.collection('c').countDocuments(), 2, 'the refused renames left the collection in place')
})

t.test('find, getMore, killCursors, distinct', async (t) => {
  await refuses(
    t,
    { find: 'c', skip: 'x' },
    14,
    "BSON field 'find.skip' is the wrong type 'string', expected types '[long, int, decimal, double']"
  )
  await refuses(t, { find: 'c', limit: 1.5 }, 2, "BSON field 'limit' value must be an integer")
  await refuses(t, { find: 'c', tailable: true }, 238, 'tailable cursors are not supported by devdb')
  await refuses(
    t,
    { find: 'c', min: { _id: 1 } },
    238,
    'find min/max/returnKey/showRecordId are not supported by devdb'
  )
  await refuses(
    t,
    { find: 'c', projection: { s: { $meta: 'textScore' } } },
    2,
    'query requires text score metadata, but it is not available'
  )
  await refuses(
    t,
    { getMore: 'x', collection: 'c' },
    14,
    "BSON field 'getMore.getMore' is the wrong type, expected type 'long'"
  )
  await refuses(t, { killCursors: 'c' }, 14, "BSON field 'killCursors.cursors' is missing but a required field")
  await refuses(t, { distinct: 'c', key: 1 }, 14, "BSON field 'distinct.key' is the wrong type, expected type 'string'")
})

t.test('aggregate', async (t) => {
  await refuses(
    t,
    { aggregate: 1, pipeline: [{ $match: {} }], cursor: {} },
    73,
    "{aggregate: 1} is not valid for '$match'; a collection is required."
  )
  await refuses(
    t,
    { aggregate: true, pipeline: [], cursor: {} },
    14,
    "Invalid command format: the 'aggregate' field must specify a collection name or 1"
  )
  await refuses(
    t,
    { aggregate: 1, pipeline: [{ $listLocalSessions: 5 }], cursor: {} },
    14,
    "BSON field '$listLocalSessions' is the wrong type, expected type 'object'",
    h.client.db('admin')
  )
  await refuses(
    t,
    { aggregate: 'c', pipeline: [{ $project: { s: { $meta: 'textScore' } } }], cursor: {} },
    40218,
    'query requires text score metadata, but it is not available'
  )
  await refuses(
    t,
    { aggregate: 'c', pipeline: [{ $out: 5 }], cursor: {} },
    14,
    '$out target must be a string or {db, coll}'
  )
})

t.test("$out keeps the target's indexes; a duplicate key leaves the target as it was", async (t) => {
  const out = h.db.collection('out')
  await out.insertOne({ _id: 'old', k: 'o' } as never)
  await out.createIndex({ k: 1 }, { unique: true, name: 'k_u' })
  await h.db
    .collection('c')
    .aggregate([{ $project: { k: 1 } }, { $out: { db: 'test', coll: 'out' } }])
    .toArray()
  t.same(await out.find().sort({ _id: 1 }).toArray(), [
    { _id: 1, k: 'x' },
    { _id: 2, k: 'y' }
  ])
  t.same(
    (await out.indexes()).map((ix) => ix.name),
    ['_id_', 'k_u']
  )
  const dup = await failure({ aggregate: 'c', pipeline: [{ $project: { k: 'same' } }, { $out: 'out' }], cursor: {} })
  t.equal(dup.code, 11000, 'both documents have k: "same"')
  t.same(
    await out.find().sort({ _id: 1 }).toArray(),
    [
      { _id: 1, k: 'x' },
      { _id: 2, k: 'y' }
    ],
    'target unchanged'
  )
})

t.test('$merge arguments', async (t) => {
  const merge = (spec: Document): Document => ({ aggregate: 'c', pipeline: [{ $merge: spec }], cursor: {} })
  await refuses(
    t,
    merge({ into: 5 }),
    51178,
    "$merge 'into' field  must be either a string or an object, but found number"
  )
  await refuses(
    t,
    merge({ into: 'm', on: 5 }),
    51186,
    "$merge 'on' field must be either a string or an array of strings"
  )
  await refuses(
    t,
    merge({ into: 'm', on: [] }),
    51186,
    "$merge 'on' field must be either a string or an array of strings"
  )
  await refuses(t, merge({ into: 'm', let: { x: 1 } }), 238, '$merge let is not supported by devdb')
  await refuses(
    t,
    merge({ into: 'm', whenMatched: [{ $set: { z: 1 } }] }),
    238,
    '$merge with a whenMatched pipeline is not supported by devdb'
  )
  await refuses(
    t,
    merge({ into: 'm', whenMatched: 'sideways' }),
    2,
    "Enumeration value 'sideways' for field '$merge.whenMatched' is not a valid value."
  )
  await refuses(
    t,
    merge({ into: 'm', whenNotMatched: 'maybe' }),
    2,
    "Enumeration value 'maybe' for field '$merge.whenNotMatched' is not a valid value."
  )
  t.same(await h.db.listCollections({ name: 'm' }).toArray(), [], 'no refused $merge created its target')
})

t.test('insert, update and delete statements', async (t) => {
  await refuses(
    t,
    { insert: 'c', documents: 5 },
    14,
    "BSON field 'insert.documents' is the wrong type, expected type 'array'"
  )
  await refuses(t, { update: 'c', updates: [5] }, 14, 'update statement must be an object')
  await refuses(
    t,
    { update: 'c', updates: [{ q: 5, u: {} }] },
    14,
    "BSON field 'UpdateOpEntry.q' is the wrong type, expected type 'object'"
  )
  await refuses(
    t,
    { update: 'c', updates: [{ q: {} }] },
    40414,
    "BSON field 'update.updates.u' is missing but a required field"
  )
  await refuses(t, { delete: 'c', deletes: [5] }, 14, 'delete statement must be an object')
  await refuses(
    t,
    { delete: 'c', deletes: [{ q: {} }] },
    40414,
    "BSON field 'delete.deletes.limit' is missing but a required field"
  )
  t.equal(await h.db.collection('c').countDocuments(), 2, 'nothing was deleted')
})

t.test('update documents and operators', async (t) => {
  const update = (u: unknown, more: Document = {}): Document => ({
    update: 'c',
    updates: [{ q: { _id: 1 }, u, ...more }]
  })
  await refuses(t, update(5), 14, 'Update argument must be either an object or an array')
  await refuses(
    t,
    update([{ $set: { x: 1 }, $unset: 'y' }]),
    9,
    'A pipeline stage specification object must contain exactly one field.'
  )
  await refuses(t, update([{ $match: {} }]), 72, '$match is not allowed to be used within an update')
  await refuses(
    t,
    update({ a: 1, $set: { b: 1 } }),
    9,
    "The dollar ($) prefixed field '$set' in '$set' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."
  )
  await refuses(
    t,
    update({ $set: { 'a..b': 1 } }),
    9,
    "The update path 'a..b' contains an empty field name, which is not allowed."
  )
  await refuses(t, update({ $rename: { k: 5 } }), 2, "The 'to' field for $rename must be a string: k: 5")
  await refuses(t, update({ $rename: { k: 'k' } }), 2, 'The source and target field for $rename must differ: k: "k"')
  await refuses(
    t,
    update({ $rename: { k: 'k.l' } }),
    2,
    'The source and target field for $rename must not be on the same path: k: "k.l"'
  )
  await refuses(t, update({ $rename: { 'a.$': 'b' } }), 2, 'The source field for $rename may not be dynamic: a.$')
  await refuses(t, update({ $pop: { a: 2 } }), 9, '$pop expects 1 or -1, found: 2')
  await refuses(t, update({ $pullAll: { a: 1 } }), 2, '$pullAll requires an array argument but was given a int')
  await refuses(
    t,
    update({ $currentDate: { d: 'now' } }),
    2,
    "string is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'})."
  )
  await refuses(
    t,
    update({ $push: { a: { $each: 1 } } }),
    2,
    'The argument to $each in $push must be an array but it was of type: int'
  )
  await refuses(t, update({ $push: { a: { $each: [1], $sortt: 1 } } }), 2, 'Unrecognized clause in $push: $sortt')
  await refuses(
    t,
    update({ $bit: { a: 5 } }),
    2,
    'The $bit modifier is not compatible with a int. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}'
  )
  await refuses(t, update({ k: 'z' }, { multi: true }), 9, 'multi update is not supported for replacement-style update')
  await refuses(
    t,
    update({ _id: 9, k: 'z' }),
    66,
    "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 9"
  )
  const upsert = { update: 'c', updates: [{ q: { _id: 5 }, u: { $set: { _id: 6 } }, upsert: true }] }
  await refuses(t, upsert, 66, "Performing an update on the path '_id' would modify the immutable field '_id'")
  t.same(
    await h.db.collection('c').findOne({ _id: 1 as never }),
    { _id: 1, a: [1, 2], k: 'x' },
    'the document is unchanged'
  )
})

t.test('arrayFilters', async (t) => {
  const update = (arrayFilters: unknown): Document => ({
    update: 'c',
    updates: [{ q: { _id: 1 }, u: { $set: { 'a.$[e]': 0 } }, arrayFilters }]
  })
  await refuses(t, update(5), 14, "BSON field 'arrayFilters' is the wrong type, expected type 'array'")
  await refuses(t, update([5]), 9, 'Cannot use an expression without a top-level field name in arrayFilters')
  await refuses(
    t,
    update([{ $expr: true }]),
    9,
    'Cannot use an expression without a top-level field name in arrayFilters'
  )
  await refuses(
    t,
    update([{ e: 1, f: 2 }]),
    9,
    "Error parsing array filter :: caused by :: Expected a single top-level field name, found 'e' and 'f'"
  )
  await refuses(
    t,
    update([{ E: 1 }]),
    2,
    "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'E'"
  )
  await refuses(t, update([{ e: 1 }, { e: 2 }]), 9, 'Found multiple array filters with the same top-level field name e')
})

t.test('upserts that cannot infer the inserted document', async (t) => {
  const upsert = (q: Document): Document => ({ update: 'c', updates: [{ q, u: { $set: { z: 1 } }, upsert: true }] })
  await refuses(
    t,
    upsert({ $and: [{ n: 1 }, { n: 2 }] }),
    54,
    "cannot infer query fields to set, path 'n' is matched twice"
  )
  await refuses(t, upsert({ 'p.q': 1, p: { q: 2 } }), 54, "cannot infer query fields to set, path 'p' is matched twice")
  t.equal(await h.db.collection('c').countDocuments(), 2, 'nothing was upserted')
})

t.test('createIndexes and dropIndexes', async (t) => {
  await refuses(
    t,
    { createIndexes: 'c', indexes: 5 },
    14,
    "BSON field 'createIndexes.indexes' is the wrong type, expected type 'array'"
  )
  await refuses(t, { createIndexes: 'c', indexes: [] }, 2, 'Must specify at least one index to create')
  await refuses(t, { createIndexes: 'c', indexes: [5] }, 14, 'index specification must be an object')
  // mongod appends "Specification: …" to this message; the prefix is what devdb shares with it.
  const idUnique = await failure({ createIndexes: 'c', indexes: [{ key: { _id: 1 }, name: 'id_u', unique: true }] })
  t.match(idUnique.message, /^The field 'unique' is not valid for an _id index specification\./)
  await refuses(t, { listIndexes: 'none' }, 26, 'ns does not exist: test.none')
  await refuses(t, { dropIndexes: 'none', index: '*' }, 26, 'ns not found test.none')
  await refuses(t, { dropIndexes: 'c', index: { nope: 1 } }, 27, "can't find index with key: { nope: 1 }")
  await refuses(
    t,
    { dropIndexes: 'c', index: 5 },
    14,
    "BSON field 'dropIndexes.index' is the wrong type, expected types '[string, object, array]'"
  )
  await h.db.collection('c').createIndex({ k: 1 }, { name: 'k1' })
  await h.db.collection('c').createIndex({ k: 1 }, { name: 'k1_en', collation: { locale: 'en' } })
  const two = await failure({ dropIndexes: 'c', index: { k: 1 } })
  t.equal(two.code, 2)
  t.match(two.message, /^2 indexes found for key: \{ k: 1 \}, identify by name instead\. Conflicting indexes: /)
  await h.db.command({ dropIndexes: 'c', index: ['k1', 'k1_en'] })
  t.same(
    (await h.db.collection('c').indexes()).map((ix) => ix.name),
    ['_id_'],
    'an array of names drops each'
  )
})

t.test('readConcern', async (t) => {
  await refuses(
    t,
    { find: 'c', readConcern: 5 },
    14,
    "BSON field 'readConcern' is the wrong type, expected type 'object'"
  )
})
