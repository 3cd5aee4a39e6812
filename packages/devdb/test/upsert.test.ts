import t from 'tap'
import { ObjectId } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)

t.test('upsert seeds equality fields and reports upsertedId', async (t) => {
  const c = h.db.collection('up1')
  const r = await c.updateOne(
    { name: 'ann', 'addr.city': 'Oslo', age: { $gt: 5 } },
    { $set: { score: 1 }, $setOnInsert: { created: true } },
    { upsert: true }
  )
  t.equal(r.matchedCount, 0)
  t.equal(r.modifiedCount, 0)
  t.equal(r.upsertedCount, 1)
  t.ok(r.upsertedId instanceof ObjectId)
  const doc = await c.findOne({ _id: r.upsertedId as ObjectId })
  t.same(doc, { _id: r.upsertedId, name: 'ann', addr: { city: 'Oslo' }, score: 1, created: true })
})

t.test('$setOnInsert is ignored when the document exists', async (t) => {
  const c = h.db.collection('up2')
  await c.insertOne({ _id: 7 as never, n: 1 })
  const r = await c.updateOne(
    { _id: 7 as never },
    { $inc: { n: 1 }, $setOnInsert: { created: true } },
    { upsert: true }
  )
  t.equal(r.matchedCount, 1)
  t.equal(r.upsertedId, null)
  t.same(await c.findOne({ _id: 7 as never }), { _id: 7, n: 2 })
})

t.test('upsert with _id in the query and $and equality', async (t) => {
  const c = h.db.collection('up3')
  const r = await c.updateOne(
    { $and: [{ _id: 'k1' }, { kind: { $eq: 'x' } }] } as never,
    { $inc: { hits: 1 } },
    { upsert: true }
  )
  t.equal(r.upsertedId, 'k1')
  t.same(await c.findOne({ _id: 'k1' as never }), { _id: 'k1', kind: 'x', hits: 1 })
})

t.test('replacement upsert and raw upserted array', async (t) => {
  const c = h.db.collection('up4')
  const r = await c.replaceOne({ _id: 5 as never }, { v: 1 }, { upsert: true })
  t.equal(r.upsertedId, 5)
  t.same(await c.findOne({}), { _id: 5, v: 1 })
  const raw = await h.db.command({
    update: 'up4',
    updates: [
      { q: { _id: 5 }, u: { $set: { v: 2 } } },
      { q: { _id: 6 }, u: { $set: { v: 3 } }, upsert: true }
    ]
  })
  t.equal(raw.n, 2)
  t.equal(raw.nModified, 1)
  t.same(raw.upserted, [{ index: 1, _id: 6 }])
})

t.test('upsert respects unique indexes', async (t) => {
  const c = h.db.collection('up5')
  await c.createIndex({ email: 1 }, { unique: true })
  await c.insertOne({ email: 'a@x' })
  const e = await mongoError(async () => await c.updateOne({ name: 'z' }, { $set: { email: 'a@x' } }, { upsert: true }))
  t.equal(e.code, 11000)
  t.equal(await c.countDocuments(), 1)
})

t.test('bulkWrite mixes inserts, updates, upserts, deletes', async (t) => {
  const c = h.db.collection('up6')
  const r = await c.bulkWrite([
    { insertOne: { document: { _id: 1, v: 1 } } },
    { updateOne: { filter: { _id: 1 }, update: { $set: { v: 2 } } } },
    { updateOne: { filter: { _id: 2 }, update: { $set: { v: 3 } }, upsert: true } },
    { deleteOne: { filter: { _id: 1 } } }
  ] as never)
  t.equal(r.insertedCount, 1)
  t.equal(r.matchedCount, 1)
  t.equal(r.modifiedCount, 1)
  t.equal(r.upsertedCount, 1)
  t.equal(r.deletedCount, 1)
  t.same(await c.find().toArray(), [{ _id: 2, v: 3 }])
})
