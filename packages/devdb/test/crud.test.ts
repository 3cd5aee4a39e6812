import t from 'tap'
import { ObjectId } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const users = h.db.collection('users')

t.test('insertOne generates an ObjectId _id placed first', async (t) => {
  const r = await users.insertOne({ name: 'ann', age: 31 })
  t.ok(r.insertedId instanceof ObjectId)
  const doc = await users.findOne({ _id: r.insertedId })
  t.same(Object.keys(doc ?? {}), ['_id', 'name', 'age'])
  t.equal(doc?.name, 'ann')
})

t.test('insertMany, find with sort/skip/limit/projection', async (t) => {
  await users.insertMany([
    { name: 'bob', age: 25 },
    { name: 'cat', age: 40 },
    { name: 'dan', age: 35 }
  ])
  const names = await users
    .find({ age: { $gte: 30 } }, { projection: { _id: 0, name: 1 } })
    .sort({ age: -1 })
    .toArray()
  t.same(names, [{ name: 'cat' }, { name: 'dan' }, { name: 'ann' }])
  const page = await users.find({}).sort({ name: 1 }).skip(1).limit(2).toArray()
  t.same(
    page.map((d) => d.name),
    ['bob', 'cat']
  )
})

t.test('updateOne / updateMany counts', async (t) => {
  const r1 = await users.updateOne({ name: 'bob' }, { $set: { age: 26 } })
  t.equal(r1.matchedCount, 1)
  t.equal(r1.modifiedCount, 1)
  const noop = await users.updateOne({ name: 'bob' }, { $set: { age: 26 } })
  t.equal(noop.matchedCount, 1)
  t.equal(noop.modifiedCount, 0, 'a no-op $set is not a modification')
  const r2 = await users.updateMany({ age: { $gt: 30 } }, { $inc: { age: 1 } })
  t.equal(r2.matchedCount, 3)
  t.equal(r2.modifiedCount, 3)
  t.equal((await users.findOne({ name: 'cat' }))?.age, 41)
})

t.test('deleteOne / deleteMany', async (t) => {
  await users.insertMany([
    { name: 'tmp', k: 1 },
    { name: 'tmp', k: 2 },
    { name: 'tmp', k: 3 }
  ])
  const d1 = await users.deleteOne({ name: 'tmp' })
  t.equal(d1.deletedCount, 1)
  const d2 = await users.deleteMany({ name: 'tmp' })
  t.equal(d2.deletedCount, 2)
  t.equal(await users.countDocuments({ name: 'tmp' }), 0)
})

t.test('findOneAndUpdate returns before/after', async (t) => {
  const before = await users.findOneAndUpdate({ name: 'ann' }, { $set: { vip: true } })
  t.equal(before?.vip, undefined)
  const after = await users.findOneAndUpdate({ name: 'ann' }, { $set: { vip: false } }, { returnDocument: 'after' })
  t.equal(after?.vip, false)
})

t.test('countDocuments and estimatedDocumentCount', async (t) => {
  t.equal(await users.countDocuments(), 4)
  t.equal(await users.countDocuments({ age: { $lt: 30 } }), 1)
  t.equal(await users.estimatedDocumentCount(), 4)
})

t.test('aggregate', async (t) => {
  const r = await users
    .aggregate([{ $match: { age: { $gte: 30 } } }, { $group: { _id: null, total: { $sum: '$age' }, n: { $sum: 1 } } }])
    .toArray()
  t.same(r, [{ _id: null, total: 32 + 41 + 36, n: 3 }])
})

t.test('unique index and duplicate key error', async (t) => {
  const accounts = h.db.collection('accounts')
  const name = await accounts.createIndex({ email: 1 }, { unique: true })
  t.equal(name, 'email_1')
  await accounts.insertOne({ name: 'eve', email: 'eve@x.org' })
  const err = await mongoError(async () => await accounts.insertOne({ name: 'eve2', email: 'eve@x.org' }))
  t.equal(err.code, 11000)
  t.equal(
    err.message,
    'E11000 duplicate key error collection: test.accounts index: email_1 dup key: { email: "eve@x.org" }'
  )
  t.same(err.keyPattern, { email: 1 })
  t.same(err.keyValue, { email: 'eve@x.org' })
  t.equal(await accounts.countDocuments({ name: 'eve2' }), 0)
  const dups = h.db.collection('dups')
  await dups.insertMany([{ k: 1 }, { k: 1 }])
  const onExisting = await mongoError(async () => await dups.createIndex({ k: 1 }, { unique: true }))
  t.equal(onExisting.code, 11000, 'building a unique index over duplicate data fails')
  t.same(
    (await dups.listIndexes().toArray()).map((i) => i.name),
    ['_id_'],
    'and leaves no index behind'
  )
})

t.test('duplicate _id', async (t) => {
  await users.insertOne({ _id: 'fixed' as never, v: 1 })
  const err = await mongoError(async () => await users.insertOne({ _id: 'fixed' as never, v: 2 }))
  t.equal(err.code, 11000)
  t.match(err.message, /index: _id_ dup key: \{ _id: "fixed" \}/)
})

t.test('distinct', async (t) => {
  const c = h.db.collection('tags')
  await c.insertMany([{ t: ['a', 'b'] }, { t: 'c' }, { t: ['b', 1] }, {}])
  t.same(await c.distinct('t'), [1, 'a', 'b', 'c'])
})

t.test('unacknowledged (w:0) writes get no reply but are applied in order', async (t) => {
  const c = h.db.collection('w0')
  await c.insertOne({ k: 1 }, { writeConcern: { w: 0 } })
  await c.updateOne({ k: 1 }, { $set: { seen: true } }, { writeConcern: { w: 0 } })
  let doc = null
  for (let i = 0; i < 50 && doc?.seen !== true; i++) {
    doc = await c.findOne({ k: 1 })
    if (doc?.seen !== true) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(doc?.seen, true)
})
