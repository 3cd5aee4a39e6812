/**
 * buildInfo under mongod's names, dbStats, collStats and $collStats (mongosh's db.coll.stats()):
 * counts and sizes measured on the data held, errors as mongod 7.0 gives them.
 */
import t from 'tap'
import { BSON, MongoClient, type Document } from 'mongodb'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t, {}, 'stats')
const coll = h.db.collection<SpecDoc>('orders')
const docs = Array.from({ length: 50 }, (_, i) => ({
  _id: i,
  customer: `c${i % 7}`,
  total: i * 10,
  note: 'x'.repeat(i)
}))
await coll.insertMany(docs)
await coll.createIndex({ customer: 1 })
const { calculateObjectSize } = BSON
const dataSize = docs.reduce((n, d) => n + calculateObjectSize(d), 0)

t.test('buildInfo answers under its names; other casings are unknown, as in mongod', async (t) => {
  t.equal((await h.client.db('admin').admin().buildInfo()).version, '7.0.0', 'the driver sends buildinfo')
  t.equal((await h.db.command({ buildInfo: 1 })).versionArray[0], 7)
  t.equal((await h.db.command({ dbstats: 1 })).objects, 50, 'dbstats alias')
  t.equal((await h.db.command({ collstats: 'orders' })).count, 50, 'collstats alias')
  const e = await mongoError(async () => await h.db.command({ BUILDINFO: 1 }))
  t.equal(e.code, 59)
  t.equal(e.message, "no such command: 'BUILDINFO'")
  t.equal(
    (await mongoError(async () => await h.db.command({ serverstatus: 1 }))).code,
    59,
    'serverStatus has no lower-case alias'
  )
})

t.test('collStats: count and sizes of the documents held', async (t) => {
  const s = await h.db.command({ collStats: 'orders' })
  t.match(s, {
    ns: 'stats.orders',
    count: 50,
    size: dataSize,
    storageSize: dataSize,
    avgObjSize: Math.floor(dataSize / 50),
    nindexes: 2,
    capped: false,
    ok: 1
  })
  t.same(Object.keys(s.indexSizes), ['_id_', 'customer_1'])
  t.ok(s.indexSizes._id_ > 50 * 8, 'the _id index has an entry per document')
  t.equal(s.totalIndexSize, s.indexSizes._id_ + s.indexSizes.customer_1)
  t.equal(s.totalSize, s.size + s.totalIndexSize)
  const scaled = await h.db.command({ collStats: 'orders', scale: 1024 })
  t.equal(scaled.size, Math.floor(dataSize / 1024))
  t.equal(scaled.scaleFactor, 1024)
  t.equal((await mongoError(async () => await h.db.command({ collStats: 'nope' }))).code, 26)
  t.equal((await mongoError(async () => await h.db.command({ collStats: 'orders', scale: 0 }))).code, 51024)
})

t.test('sizes follow writes', async (t) => {
  await coll.insertOne({ _id: 1000, customer: 'big', total: 1, note: 'y'.repeat(10_000) })
  const s = await h.db.command({ collStats: 'orders' })
  t.equal(s.count, 51)
  t.equal(s.size, dataSize + calculateObjectSize({ _id: 1000, customer: 'big', total: 1, note: 'y'.repeat(10_000) }))
  await coll.deleteOne({ _id: 1000 })
  t.equal((await h.db.command({ collStats: 'orders' })).size, dataSize)
})

t.test('$collStats: storageStats, count and latencyStats', async (t) => {
  t.equal((await coll.find({ customer: 'c1' }).toArray()).length, 7)
  const [s] = await coll.aggregate([{ $collStats: { storageStats: {}, count: {}, latencyStats: {} } }]).toArray()
  t.match(s, { ns: 'stats.orders', count: 50, storageStats: { count: 50, size: dataSize, nindexes: 2 } })
  t.ok(s.localTime instanceof Date)
  t.equal(s.latencyStats.reads.ops, 1, 'the find')
  t.ok(s.latencyStats.writes.ops >= 3, 'insertMany, insertOne, deleteOne')
  t.ok(s.latencyStats.writes.latency > 0, 'microseconds measured')
  const [projected] = await coll
    .aggregate([
      { $collStats: { storageStats: { scale: 1024 } } },
      { $project: { _id: 0, size: '$storageStats.size' } }
    ])
    .toArray()
  t.same(projected, { size: Math.floor(dataSize / 1024) }, 'the rest of the pipeline runs on its output')
})

t.test('$collStats refuses as mongod does', async (t) => {
  const missing = await mongoError(
    async () =>
      await h.db
        .collection('nope')
        .aggregate([{ $collStats: { storageStats: {} } }])
        .toArray()
  )
  t.equal(missing.code, 26)
  t.equal(
    missing.message,
    'Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [stats.nope] not found.'
  )
  const code = async (pipeline: Document[]): Promise<number | undefined> =>
    (await mongoError(async () => await coll.aggregate(pipeline).toArray())).code
  t.equal(await code([{ $match: {} }, { $collStats: {} }]), 40602)
  t.equal((await mongoError(async () => await coll.aggregate([{ $collStats: { bogus: {} } }]).toArray())).code, 40415)
  t.equal((await mongoError(async () => await coll.aggregate([{ $collStats: 1 }]).toArray())).code, 9)
  t.equal((await mongoError(async () => await h.db.aggregate([{ $collStats: {} }]).toArray())).code, 73)
  t.equal(await code([{ $collStats: { queryExecStats: {} } }]), 238)
  const session = h.client.startSession()
  t.teardown(async () => await session.endSession())
  session.startTransaction()
  const inTxn = await mongoError(
    async () => await coll.aggregate([{ $collStats: { count: {} } }], { session }).toArray()
  )
  t.equal(inTxn.code, 263)
  await session.abortTransaction()
})

t.test('dbStats: collections, objects and sizes of the database', async (t) => {
  await h.db.collection<SpecDoc>('other').insertOne({ _id: 1, a: 'b' })
  const s = await h.db.command({ dbStats: 1 })
  const other = calculateObjectSize({ _id: 1, a: 'b' })
  t.match(s, {
    db: 'stats',
    collections: 2,
    views: 0,
    objects: 51,
    dataSize: dataSize + other,
    storageSize: dataSize + other,
    indexes: 3,
    scaleFactor: 1,
    ok: 1
  })
  t.equal(s.avgObjSize, (dataSize + other) / 51)
  t.notOk('fsTotalSize' in s, 'in memory: no filesystem, as an ephemeral mongod')
  t.match(await h.client.db('empty').command({ dbStats: 1 }), { collections: 0, objects: 0, dataSize: 0 })
  t.match(await h.db.command({ dbStats: 1, freeStorage: 1 }), { freeStorageSize: 0, totalFreeStorageSize: 0 })
})

t.test('measuring a large collection does not hold the other connections', async (t) => {
  const big = h.db.collection<SpecDoc>('big')
  for (let i = 0; i < 60; i++) {
    await big.insertMany(
      Array.from({ length: 1000 }, (_, j) => ({
        _id: i * 1000 + j,
        owner: `u${j % 50}`,
        title: 'a title of some length'
      }))
    )
  }
  await big.createIndex({ owner: 1 })
  const other = new MongoClient(h.server.uri)
  t.teardown(async () => await other.close())
  const reader = other.db('stats').collection<SpecDoc>('big')
  await reader.findOne({ _id: 1 })
  const stats = h.db.command({ collStats: 'big' })
  const latencies: number[] = []
  // An object: the loop reads a flag only the promise's callback sets.
  const collStats = { done: false }
  void stats.finally(() => {
    collStats.done = true
  })
  while (!collStats.done) {
    const started = performance.now()
    await reader.findOne({ _id: latencies.length })
    latencies.push(performance.now() - started)
  }
  const s = await stats
  t.equal(s.count, 60_000)
  t.ok(latencies.length >= 3, `${latencies.length} finds answered while collStats ran`)
  const sorted = [...latencies].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]
  t.ok(median < 250, `median ${median.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`)
})
