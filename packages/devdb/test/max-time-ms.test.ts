import t, { type Test } from 'tap'
import { MongoClient } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const other = await new MongoClient(h.server.uri).connect()
t.teardown(async () => {
  await other.close()
})

// ~0.5 ms of mingo work per document: the whole 10 000-document scan would take several seconds.
const SLOW = {
  $expr: {
    $lt: [{ $reduce: { input: { $range: [0, 100] }, initialValue: 0, in: { $add: ['$$value', '$$this'] } } }, 0]
  }
}
const BUDGET = 150
const coll = h.db.collection('slow')
await coll.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ _id: i, g: i % 10 })) as never)

/** Runs `op` (expected to fail with MaxTimeMSExpired) while another connection pings; returns both timings. */
async function expire (t: Test, op: () => Promise<unknown>): Promise<void> {
  const start = performance.now()
  const failing = mongoError(op)
  // Sent while the slow command holds the engine: answered as soon as the budget stops it.
  await new Promise((resolve) => setTimeout(resolve, 20))
  const pingStart = performance.now()
  await other.db('admin').command({ ping: 1 })
  const pingMs = performance.now() - pingStart
  const e = await failing
  const elapsed = performance.now() - start
  t.equal(e.code, 50)
  t.equal(e.codeName, 'MaxTimeMSExpired')
  t.equal(e.message, 'operation exceeded time limit')
  t.ok(elapsed < 2500, `stopped after ${Math.round(elapsed)} ms, not after the whole scan`)
  t.ok(pingMs < 2500, `the other connection answered within ${Math.round(pingMs)} ms`)
}

t.test('find', async (t) => {
  await expire(t, async () => await coll.find(SLOW).maxTimeMS(BUDGET).toArray())
})

t.test('find with a sort (blocking sort input scan)', async (t) => {
  await expire(t, async () => await coll.find(SLOW).sort({ g: -1 }).limit(5).maxTimeMS(BUDGET).toArray())
})

t.test('count', async (t) => {
  await expire(t, async () => await h.db.command({ count: 'slow', query: SLOW, maxTimeMS: BUDGET }))
  await expire(t, async () => await coll.countDocuments(SLOW, { maxTimeMS: BUDGET }))
})

t.test('distinct', async (t) => {
  await expire(t, async () => await coll.distinct('g', SLOW, { maxTimeMS: BUDGET }))
})

t.test('aggregate: leading $match and later stages', async (t) => {
  await expire(t, async () => await coll.aggregate([{ $match: SLOW }], { maxTimeMS: BUDGET }).toArray())
  await expire(
    t,
    async () =>
      await coll
        .aggregate([{ $match: { g: { $gte: 0 } } }, { $match: SLOW }, { $count: 'n' }], { maxTimeMS: BUDGET })
        .toArray()
  )
})

t.test('findAndModify', async (t) => {
  await expire(t, async () => await coll.findOneAndUpdate(SLOW, { $set: { hit: true } }, { maxTimeMS: BUDGET }))
  await expire(t, async () => await coll.findOneAndDelete(SLOW, { maxTimeMS: BUDGET }))
  t.equal(await coll.countDocuments({ hit: true }), 0, 'nothing was modified')
  t.equal(await coll.countDocuments(), 10_000, 'nothing was deleted')
})

t.test('a budget large enough lets the command finish', async (t) => {
  t.equal(await coll.countDocuments({ g: 3 }, { maxTimeMS: 60_000 }), 1000)
  t.same(
    await coll
      .find({ _id: 5 } as never)
      .maxTimeMS(1)
      .toArray(),
    [{ _id: 5, g: 5 }],
    'a one-document lookup fits in 1 ms'
  )
  t.equal((await h.db.command({ count: 'slow', query: {}, maxTimeMS: 0 })).n, 10_000, '0 means no limit')
})

t.test('getMore runs on what is left of the find budget, then the cursor is gone', async (t) => {
  // Slow for every document, matching only _id 0 and 1: the first batch (one document, plus the
  // look-ahead that finds the second) is quick; the getMore's scan of the rest is not.
  const slowTrue = { $gte: [SLOW.$expr.$lt[0], 0] }
  const firstTwo = { $expr: { $and: [slowTrue, { $lt: ['$_id', 2] }] } }
  const first = await h.db.command({ find: 'slow', filter: firstTwo, batchSize: 1, maxTimeMS: 400 })
  t.equal(first.cursor.firstBatch.length, 1)
  // A getMore may yield after 5 ms and 256 works (an empty batch, the cursor open); the driver would
  // send the next one. The budget runs out across them.
  const rest: unknown[] = []
  const e = await mongoError(async () => {
    for (let i = 0; i < 1000; i++) {
      rest.push(
        ...(await h.db.command({ getMore: first.cursor.id, collection: 'slow', batchSize: 5 })).cursor.nextBatch
      )
    }
  })
  t.equal(e.code, 50, 'the getMores stop on the budget the find left')
  t.ok(rest.length <= 1, 'at most the look-ahead document came back before the budget ran out')
  const gone = await mongoError(async () => await h.db.command({ getMore: first.cursor.id, collection: 'slow' }))
  t.equal(gone.code, 43, 'a cursor that ran out of time is killed')
})

t.test('getMore refuses its own maxTimeMS on a non-tailable cursor', async (t) => {
  const first = await h.db.command({ find: 'slow', filter: {}, batchSize: 2 })
  const e = await mongoError(
    async () => await h.db.command({ getMore: first.cursor.id, collection: 'slow', maxTimeMS: 10 })
  )
  t.equal(e.code, 2)
  t.equal(e.message, 'cannot set maxTimeMS on getMore command for a non-awaitData cursor')
})

t.test('invalid maxTimeMS values are refused as mongod does', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['100', 'maxTimeMS must be a number'],
    [-1, '-1 value for maxTimeMS is out of range [0, 2147483647]'],
    [2 ** 31, '2147483648 value for maxTimeMS is out of range [0, 2147483647]'],
    [1.5, 'maxTimeMS has non-integral value']
  ]
  for (const [v, msg] of cases) {
    const e = await mongoError(async () => await h.db.command({ find: 'slow', filter: {}, maxTimeMS: v }))
    t.equal(e.code, 2, `maxTimeMS ${String(v)}`)
    t.equal(e.message, msg)
  }
})
