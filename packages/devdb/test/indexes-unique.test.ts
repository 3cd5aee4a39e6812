import t from 'tap'
import { Decimal128, Long } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)

t.test('listIndexes shape and default names', async (t) => {
  const c = h.db.collection('ix1')
  t.equal(await c.createIndex({ a: 1, b: -1 }), 'a_1_b_-1')
  t.equal(await c.createIndex({ email: 1 }, { unique: true }), 'email_1')
  const list = await c.listIndexes().toArray()
  t.same(list, [
    { v: 2, key: { _id: 1 }, name: '_id_' },
    { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
    { v: 2, key: { email: 1 }, name: 'email_1', unique: true }
  ])
  t.equal(await c.createIndex({ a: 1, b: -1 }), 'a_1_b_-1', 'creating the same index again is a no-op')
})

t.test('index conflicts', async (t) => {
  const c = h.db.collection('ix2')
  await c.createIndex({ a: 1 }, { name: 'myidx' })
  const e1 = await mongoError(async () => await c.createIndex({ a: 1 }, { name: 'other' }))
  t.equal(e1.code, 85)
  t.equal(e1.message, 'Index already exists with a different name: myidx')
  const e2 = await mongoError(async () => await c.createIndex({ b: 1 }, { name: 'myidx' }))
  t.equal(e2.code, 86)
  const e3 = await mongoError(async () => await c.createIndex({ a: 1 }, { name: 'myidx', unique: true }))
  t.equal(e3.code, 85)
})

t.test('numeric types collide in unique indexes', async (t) => {
  const c = h.db.collection('ix3')
  await c.createIndex({ n: 1 }, { unique: true })
  await c.insertOne({ n: 1 })
  for (const v of [1.0, Long.fromNumber(1), Decimal128.fromString('1.0')]) {
    const e = await mongoError(async () => await c.insertOne({ n: v }))
    t.equal(e.code, 11000)
  }
  await c.insertOne({ n: '1' })
  t.equal(await c.countDocuments(), 2)
})

t.test('compound unique and multikey', async (t) => {
  const c = h.db.collection('ix4')
  await c.createIndex({ a: 1, b: 1 }, { unique: true })
  await c.insertMany([
    { a: 1, b: 1 },
    { a: 1, b: 2 },
    { a: 2, b: 1 }
  ])
  const e = await mongoError(async () => await c.insertOne({ a: 1, b: 2 }))
  t.equal(e.code, 11000)
  t.same(e.keyPattern, { a: 1, b: 1 })
  t.same(e.keyValue, { a: 1, b: 2 })
  t.equal(e.message, 'E11000 duplicate key error collection: test.ix4 index: a_1_b_1 dup key: { a: 1, b: 2 }')
  const m = h.db.collection('ix5')
  await m.createIndex({ tags: 1 }, { unique: true })
  await m.insertOne({ tags: ['x', 'y'] })
  await m.insertOne({ tags: ['z', 'z'] })
  const e2 = await mongoError(async () => await m.insertOne({ tags: ['q', 'y'] }))
  t.equal(e2.code, 11000)
  t.same(e2.keyValue, { tags: 'y' })
})

t.test('missing fields count as null in non-sparse unique indexes', async (t) => {
  const c = h.db.collection('ix6')
  await c.createIndex({ u: 1 }, { unique: true })
  await c.insertOne({ x: 1 })
  const e = await mongoError(async () => await c.insertOne({ x: 2 }))
  t.equal(e.code, 11000)
  t.same(e.keyValue, { u: null })
})

t.test('unique enforced on update; multi-update stops at the duplicate', async (t) => {
  const c = h.db.collection('ix7')
  await c.createIndex({ k: 1 }, { unique: true })
  await c.insertMany([
    { _id: 1, k: 1 },
    { _id: 2, k: 2 },
    { _id: 3, k: 3 }
  ] as never)
  const e = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { k: 2 } }))
  t.equal(e.code, 11000)
  t.same(await c.findOne({ _id: 1 as never }), { _id: 1, k: 1 })
  const e2 = await mongoError(async () => await c.updateMany({}, { $set: { k: 9 } }))
  t.equal(e2.code, 11000)
  t.same(
    (await c.find().sort({ _id: 1 }).toArray()).map((d) => d.k),
    [9, 2, 3],
    'first doc updated, then stopped'
  )
})

t.test('unordered insertMany reports every write error', async (t) => {
  const c = h.db.collection('ix8')
  await c.createIndex({ k: 1 }, { unique: true })
  const e = await mongoError(
    async () => await c.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }, { k: 2 }], { ordered: false })
  )
  const errs = (e as any).writeErrors as Array<{ index: number; code: number }>
  t.same(
    errs.map((w) => [w.index, w.code]),
    [
      [1, 11000],
      [3, 11000]
    ]
  )
  t.equal(await c.countDocuments(), 2)
  const e2 = await mongoError(async () => await c.insertMany([{ k: 5 }, { k: 1 }, { k: 6 }]))
  t.equal(((e2 as any).writeErrors as unknown[]).length, 1)
  t.equal(await c.countDocuments(), 3, 'ordered insert stops at the first error')
})

t.test('dropIndexes', async (t) => {
  const c = h.db.collection('ix9')
  await c.createIndex({ a: 1 })
  await c.createIndex({ b: 1 })
  await c.dropIndex('a_1')
  t.same(
    (await c.listIndexes().toArray()).map((i) => i.name),
    ['_id_', 'b_1']
  )
  const e = await mongoError(async () => await c.dropIndex('nope'))
  t.equal(e.code, 27)
  const e2 = await mongoError(async () => await c.dropIndex('_id_'))
  t.equal(e2.code, 72)
  await c.dropIndexes()
  t.same(
    (await c.listIndexes().toArray()).map((i) => i.name),
    ['_id_']
  )
})

t.test('unsupported index kinds are refused', async (t) => {
  const c = h.db.collection('ix10')
  const e = await mongoError(async () => await c.createIndex({ loc: '2dsphere' }))
  t.equal(e.code, 67)
  const e2 = await mongoError(async () => await c.createIndex({ a: 1 }, { expireAfterSeconds: -1 }))
  t.equal(e2.code, 67)
})

t.test('_id and indexed equality lookups examine only matching documents', async (t) => {
  const c = h.db.collection('big')
  await c.insertMany(Array.from({ length: 5000 }, (_, i) => ({ _id: i, email: `u${i}@x`, g: i % 10 })) as never)
  await c.createIndex({ email: 1 }, { unique: true })
  await c.createIndex({ g: 1 })
  const scanned = async (): Promise<number> =>
    (await h.db.admin().command({ serverStatus: 1 })).metrics.queryExecutor.scannedObjects
  let before = await scanned()
  t.equal((await c.findOne({ _id: 4321 } as never))?.email, 'u4321@x')
  t.equal((await scanned()) - before, 1, 'find by _id examines one document')
  before = await scanned()
  t.equal((await c.findOne({ email: 'u77@x' }))?._id, 77)
  t.equal((await scanned()) - before, 1, 'find by unique index examines one document')
  before = await scanned()
  t.equal(await c.countDocuments({ g: 3, _id: { $lt: 100 } } as never), 10)
  // Both candidate plans run a trial until the _id range (100 keys) reaches its end, as mongod's multi-planner does.
  t.ok((await scanned()) - before <= 250, 'about two trials of 100: far from the 5000 documents of a scan')
  before = await scanned()
  t.equal((await c.updateOne({ email: { $in: ['u1@x', 'u2@x'] } }, { $set: { hit: true } })).modifiedCount, 1)
  t.ok((await scanned()) - before <= 2, '$in on an indexed field uses the index')
  before = await scanned()
  await c.findOne({ nope: 1 })
  t.equal((await scanned()) - before, 5000, 'an unindexed filter scans')
})
