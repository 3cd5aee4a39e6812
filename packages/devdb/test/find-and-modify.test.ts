import t from 'tap'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const c = h.db.collection('fam')
await c.insertMany([
  { _id: 1 as never, q: 'a', n: 3 },
  { _id: 2 as never, q: 'a', n: 1 },
  { _id: 3 as never, q: 'b', n: 2 }
])

t.test('sort picks the document; projection shapes the value', async (t) => {
  const r = await c.findOneAndUpdate(
    { q: 'a' },
    { $inc: { n: 10 } },
    { sort: { n: 1 }, projection: { n: 1, _id: 0 }, returnDocument: 'after' }
  )
  t.same(r, { n: 11 })
  t.same(await c.findOne({ _id: 2 as never }), { _id: 2, q: 'a', n: 11 })
})

t.test('raw reply shape', async (t) => {
  const r = await h.db.command({ findAndModify: 'fam', query: { _id: 3 }, update: { $set: { n: 5 } } })
  t.same(r.lastErrorObject, { n: 1, updatedExisting: true })
  t.same(r.value, { _id: 3, q: 'b', n: 2 })
  const miss = await h.db.command({ findAndModify: 'fam', query: { _id: 99 }, update: { $set: { n: 5 } } })
  t.same(miss.lastErrorObject, { n: 0, updatedExisting: false })
  t.equal(miss.value, null)
  const up = await h.db.command({
    findAndModify: 'fam',
    query: { _id: 50 },
    update: { $set: { n: 5 } },
    upsert: true,
    new: true
  })
  t.same(up.lastErrorObject, { n: 1, updatedExisting: false, upserted: 50 })
  t.same(up.value, { _id: 50, n: 5 })
})

t.test('findOneAndDelete / findOneAndReplace', async (t) => {
  const del = await c.findOneAndDelete({ q: 'b' })
  t.equal(del?._id, 3)
  t.equal(await c.countDocuments({ q: 'b' }), 0)
  const rep = await c.findOneAndReplace({ _id: 1 as never }, { replaced: true }, { returnDocument: 'after' })
  t.same(rep, { _id: 1, replaced: true })
})

t.test('option errors', async (t) => {
  const e1 = await mongoError(
    async () => await h.db.command({ findAndModify: 'fam', query: {}, remove: true, update: { $set: { a: 1 } } })
  )
  t.equal(e1.code, 9)
  t.equal(e1.message, 'Cannot specify both an update and remove=true')
  const e2 = await mongoError(async () => await h.db.command({ findAndModify: 'fam', query: {} }))
  t.equal(e2.code, 9)
  t.equal(e2.message, 'Either an update or remove=true must be specified')
  const e3 = await mongoError(
    async () => await h.db.command({ findAndModify: 'fam', query: {}, remove: true, new: true })
  )
  t.equal(e3.code, 9)
})
