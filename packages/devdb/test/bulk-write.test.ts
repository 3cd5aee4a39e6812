/**
 * bulkWrite, MongoDB 8.0's command (the driver's `MongoClient.bulkWrite`): ops across collections
 * in one command, with each op's checks and write errors as its insert/update/delete would have
 * them, ordered or not, inside transactions all-or-nothing.
 */
import t from 'tap'
import { MongoClient, MongoClientBulkWriteError, MongoServerError, type AnyClientBulkWriteModel } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

interface Doc {
  _id: number
  x?: number
  y?: number
}

type Schemas = Record<string, Doc>

const h = await setup(t)
const a = h.db.collection<{ _id: number; x?: number }>('bw_a')
const b = h.db.collection<{ _id: number; y?: number }>('bw_b')
const reset = async (): Promise<void> => {
  await a.deleteMany({})
  await b.deleteMany({})
  await a.insertMany([
    { _id: 10, x: 1 },
    { _id: 11, x: 1 }
  ])
}

t.test('one command writes to several collections; each op answers as its own command would', async (t) => {
  await reset()
  const seen: string[] = []
  const watched = new MongoClient(h.server.uri, { monitorCommands: true })
  t.teardown(async () => await watched.close())
  watched.on('commandStarted', (e) => seen.push(e.commandName))
  const models: Array<AnyClientBulkWriteModel<Doc>> = [
    { name: 'insertOne', namespace: 'test.bw_a', document: { _id: 1, x: 5 } },
    { name: 'insertOne', namespace: 'test.bw_b', document: { _id: 1, y: 1 } },
    { name: 'updateOne', namespace: 'test.bw_a', filter: { _id: 2 }, update: { $set: { x: 2 } }, upsert: true },
    { name: 'updateMany', namespace: 'test.bw_a', filter: { x: 1 }, update: { $inc: { x: 10 } } },
    { name: 'replaceOne', namespace: 'test.bw_b', filter: { _id: 1 }, replacement: { y: 7 } },
    { name: 'deleteOne', namespace: 'test.bw_a', filter: { _id: 1 } }
  ]
  const r = await watched.bulkWrite<Schemas>(models, { verboseResults: true })
  t.same(seen.filter((name) => name !== 'hello' && name !== 'ismaster'), ['bulkWrite'], 'a single command')
  t.equal(r.insertedCount, 2)
  t.equal(r.upsertedCount, 1)
  t.equal(r.matchedCount, 3, 'the upsert is not a match: updateMany matched 2, replaceOne 1')
  t.equal(r.modifiedCount, 3)
  t.equal(r.deletedCount, 1)
  t.same(r.updateResults?.get(2), { matchedCount: 1, modifiedCount: 0, didUpsert: true, upsertedId: 2 })
  t.same(r.updateResults?.get(3), { matchedCount: 2, modifiedCount: 2, didUpsert: false })
  t.same(r.deleteResults?.get(5), { deletedCount: 1 })
  t.same(await a.find().sort({ _id: 1 }).toArray(), [
    { _id: 2, x: 2 },
    { _id: 10, x: 11 },
    { _id: 11, x: 11 }
  ])
  t.same(await b.find().toArray(), [{ _id: 1, y: 7 }])
})

t.test('ordered: the first write error stops the ops after it; unordered: every other op runs', async (t) => {
  await reset()
  const models: Array<AnyClientBulkWriteModel<Doc>> = [
    { name: 'insertOne', namespace: 'test.bw_b', document: { _id: 1 } },
    { name: 'insertOne', namespace: 'test.bw_a', document: { _id: 10 } },
    { name: 'insertOne', namespace: 'test.bw_b', document: { _id: 2 } }
  ]
  const ordered = await h.client.bulkWrite<Schemas>(models).then(
    () => t.fail('a duplicate _id must fail'),
    (e: unknown) => e
  )
  t.ok(ordered instanceof MongoClientBulkWriteError)
  const err = ordered as MongoClientBulkWriteError
  t.same([...err.writeErrors.keys()], [1])
  t.equal(err.writeErrors.get(1)?.code, 11000)
  t.match(err.writeErrors.get(1)?.message, /E11000 duplicate key error collection: test\.bw_a index: _id_ dup key: \{ _id: 10 \}/)
  t.same(await b.find().toArray(), [{ _id: 1 }], 'the op before the error landed, the one after did not')
  await b.deleteMany({})
  const unordered = (await h.client
    .bulkWrite<Schemas>(models, { ordered: false })
    .catch((e: unknown) => e)) as MongoClientBulkWriteError
  t.same([...unordered.writeErrors.keys()], [1])
  t.same(await b.find().sort({ _id: 1 }).toArray(), [{ _id: 1 }, { _id: 2 }])
})

t.test('in a transaction: committed together, and a write error aborts the whole transaction', async (t) => {
  await reset()
  const session = h.client.startSession()
  try {
    session.startTransaction()
    await h.client.bulkWrite<Schemas>(
      [
        { name: 'insertOne', namespace: 'test.bw_a', document: { _id: 3 } },
        { name: 'insertOne', namespace: 'test.bw_b', document: { _id: 3 } }
      ],
      { session }
    )
    t.equal(await b.countDocuments({}), 0, 'nothing is seen before the commit')
    await session.commitTransaction()
    t.equal(await b.countDocuments({ _id: 3 }), 1)
    t.equal(await a.countDocuments({ _id: 3 }), 1)

    session.startTransaction()
    await a.insertOne({ _id: 4 }, { session })
    const failed = await h.client
      .bulkWrite<Schemas>(
        [
          { name: 'insertOne', namespace: 'test.bw_b', document: { _id: 4 } },
          { name: 'insertOne', namespace: 'test.bw_a', document: { _id: 10 } }
        ],
        { session }
      )
      .catch((e: unknown) => e)
    t.ok(failed instanceof MongoClientBulkWriteError, 'the duplicate is a write error')
    const commit = await mongoError(async () => await session.commitTransaction())
    t.equal(commit.codeName, 'NoSuchTransaction', 'the transaction was aborted by the write error')
    t.equal(await a.countDocuments({ _id: 4 }), 0, 'the statement before the bulk write is gone too')
    t.equal(await b.countDocuments({ _id: 4 }), 0)
  } finally {
    await session.endSession()
  }
})

t.test('refusals: outside admin, a bad namespace index, no ops, an op of no kind', async (t) => {
  const outside = await mongoError(async () => await h.db.command({ bulkWrite: 1, ops: [{ insert: 0, document: {} }], nsInfo: [{ ns: 'test.bw_a' }] }))
  t.equal(outside.codeName, 'Unauthorized')
  const admin = h.client.db('admin')
  const badIndex = await mongoError(async () => await admin.command({ bulkWrite: 1, ops: [{ insert: 1, document: {} }], nsInfo: [{ ns: 'test.bw_a' }] }))
  t.equal(badIndex.codeName, 'BadValue')
  t.match(badIndex.message, /invalid nsInfo index/)
  const none = await mongoError(async () => await admin.command({ bulkWrite: 1, ops: [], nsInfo: [{ ns: 'test.bw_a' }] }))
  t.equal(none.codeName, 'InvalidLength')
  const noKind = await mongoError(async () => await admin.command({ bulkWrite: 1, ops: [{ document: {} }], nsInfo: [{ ns: 'test.bw_a' }] }))
  t.equal(noKind.codeName, 'FailedToParse')
  const badNs = await mongoError(async () => await admin.command({ bulkWrite: 1, ops: [{ insert: 0, document: {} }], nsInfo: [{ ns: 'nodot' }] }))
  t.equal(badNs.codeName, 'InvalidNamespace')
  t.ok(none instanceof MongoServerError || typeof none.code === 'number')
})

t.test('a statement its command would refuse is that op\'s error (an update statement with sort, a 7.0 update field devdb does not know)', async (t) => {
  await reset()
  const reply = await h.client.db('admin').command({
    bulkWrite: 1,
    ops: [
      { update: 0, filter: { _id: 10 }, updateMods: { $set: { x: 2 } }, sort: { _id: 1 } },
      { insert: 0, document: { _id: 99 } }
    ],
    nsInfo: [{ ns: 'test.bw_a' }],
    ordered: false,
    errorsOnly: true
  })
  t.equal(reply.nErrors, 1)
  t.equal(reply.nInserted, 1)
  t.equal(reply.cursor.firstBatch.length, 1, 'errorsOnly: only the error comes back')
  t.match(reply.cursor.firstBatch[0], { ok: 0, idx: 0, code: 40415 })
  t.same(await a.findOne({ _id: 10 }), { _id: 10, x: 1 })
})
