import t from 'tap'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)

t.test('sparse unique ignores documents without the field', async (t) => {
  const c = h.db.collection('sp')
  await c.createIndex({ u: 1 }, { unique: true, sparse: true })
  await c.insertMany([{ x: 1 }, { x: 2 }, { u: 'a' }])
  const e = await mongoError(async () => await c.insertOne({ u: 'a' }))
  t.equal(e.code, 11000)
  await c.insertOne({ u: null })
  const e2 = await mongoError(async () => await c.insertOne({ u: null }))
  t.equal(e2.code, 11000, 'explicit null is indexed by a sparse index')
  const list = await c.listIndexes().toArray()
  t.same(list[1], { v: 2, key: { u: 1 }, name: 'u_1', unique: true, sparse: true })
})

t.test('compound sparse indexes a document if any key field exists', async (t) => {
  const c = h.db.collection('sp2')
  await c.createIndex({ a: 1, b: 1 }, { unique: true, sparse: true })
  await c.insertMany([{ z: 1 }, { z: 2 }, { a: 1 }])
  const e = await mongoError(async () => await c.insertOne({ a: 1 }))
  t.equal(e.code, 11000)
})

t.test('partial unique applies only to matching documents', async (t) => {
  const c = h.db.collection('pf')
  await c.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } })
  await c.insertMany([
    { email: 'a', active: false },
    { email: 'a', active: false },
    { email: 'a', active: true }
  ])
  const e = await mongoError(async () => await c.insertOne({ email: 'a', active: true }))
  t.equal(e.code, 11000)
  const e2 = await mongoError(async () => await c.updateOne({ active: false }, { $set: { active: true } }))
  t.equal(e2.code, 11000, 'an update that brings a document into the filter is checked')
  const list = await c.listIndexes().toArray()
  t.same(list[1].partialFilterExpression, { active: true })
  t.equal(await c.countDocuments({ email: 'a' }), 3)
})

t.test('partial filter and sparse cannot be combined', async (t) => {
  const c = h.db.collection('pf2')
  const e = await mongoError(
    async () => await c.createIndex({ a: 1 }, { sparse: true, partialFilterExpression: { a: { $exists: true } } })
  )
  t.equal(e.code, 67)
})

t.test('queries on sparse/partial-indexed fields still see every document', async (t) => {
  const c = h.db.collection('pf3')
  await c.createIndex({ v: 1 }, { sparse: true })
  await c.insertMany([{ v: 1 }, {}, { v: null }])
  t.equal(await c.countDocuments({ v: null }), 2)
  t.equal(await c.countDocuments({ v: 1 }), 1)
})
