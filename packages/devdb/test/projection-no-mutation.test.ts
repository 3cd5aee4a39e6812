/**
 * Projections and pipeline stages never change stored documents (each case reads twice), and
 * $slice / $elemMatch follow mongod's inclusion/exclusion rules. The store is NOT frozen here, as
 * in production, so an in-place change would show up in the second read.
 */
import t from 'tap'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t, { freezeDocuments: false })
const c = h.db.collection('pm')
const original = {
  _id: 1,
  a: 1,
  b: { c: 2, d: 3 },
  arr: [1, 2, 3, 4, 5],
  items: [
    { k: 'x', v: 1 },
    { k: 'y', v: 2 }
  ],
  x: { arr: [1, 2, 3] }
}
await c.insertOne(structuredClone(original) as never)
const stored = async (): Promise<unknown> => await c.findOne({ _id: 1 as never })

t.test('a nested exclusion in find leaves the stored document whole', async (t) => {
  for (let i = 0; i < 2; i++) {
    t.same(await c.findOne({ _id: 1 as never }, { projection: { 'b.d': 0 } }), { ...original, b: { c: 2 } })
  }
  t.same(await c.find({}, { projection: { 'items.v': 0, 'x.arr': 0 } }).toArray(), [
    { ...original, items: [{ k: 'x' }, { k: 'y' }], x: {} }
  ])
  t.same(await stored(), original)
})

t.test('findAndModify fields and aggregate stages leave it whole', async (t) => {
  const r = await c.findOneAndUpdate(
    { _id: 1 as never },
    { $set: { a: 1 } },
    { projection: { 'b.d': 0 }, returnDocument: 'after' }
  )
  t.same(r, { ...original, b: { c: 2 } })
  t.same(await c.aggregate([{ $project: { 'b.d': 0 } }]).toArray(), [{ ...original, b: { c: 2 } }])
  t.same(await c.aggregate([{ $unset: ['b.c', 'items.k'] }]).toArray(), [
    { ...original, b: { d: 3 }, items: [{ v: 1 }, { v: 2 }] }
  ])
  t.same(await c.aggregate([{ $addFields: { 'b.e': 9 } }, { $set: { 'x.y': 1 } }]).toArray(), [
    { ...original, b: { c: 2, d: 3, e: 9 }, x: { arr: [1, 2, 3], y: 1 } }
  ])
  t.same(await stored(), original)
})

t.test('$slice alone is an exclusion projection: every other field stays', async (t) => {
  t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: 2 } } }), { ...original, arr: [1, 2] })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { 'x.arr': { $slice: -1 } } }), {
    ...original,
    x: { arr: [3] }
  })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: [1, 2] }, b: 0, _id: 0 } }), {
    a: 1,
    arr: [2, 3],
    items: original.items,
    x: original.x
  })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: 2 }, a: 1 } }), {
    _id: 1,
    a: 1,
    arr: [1, 2]
  })
  t.same(await stored(), original)
})

t.test('$elemMatch alone includes only its field; with exclusions it keeps the rest', async (t) => {
  t.same(await c.findOne({ _id: 1 as never }, { projection: { items: { $elemMatch: { k: 'y' } } } }), {
    _id: 1,
    items: [{ k: 'y', v: 2 }]
  })
  t.same(
    await c.findOne({ _id: 1 as never }, { projection: { items: { $elemMatch: { k: 'y' } }, b: 0, arr: 0, x: 0 } }),
    { _id: 1, a: 1, items: [{ k: 'y', v: 2 }] }
  )
  // no element matches: the field is left out
  t.same(
    await c.findOne({ _id: 1 as never }, { projection: { items: { $elemMatch: { k: 'z' } }, b: 0, arr: 0, x: 0 } }),
    { _id: 1, a: 1 }
  )
  t.same(await stored(), original)
})

t.test('a frozen store (the test default) keeps projections correct', async (t) => {
  const f = await setup(t, { freezeDocuments: true })
  const fc = f.db.collection('frozen')
  await fc.insertOne(structuredClone(original) as never)
  t.same(await fc.findOne({}, { projection: { 'b.d': 0 } }), { ...original, b: { c: 2 } })
  t.same(await fc.findOne({}, { projection: { arr: { $slice: 1 } } }), { ...original, arr: [1] })
  t.same(await fc.aggregate([{ $project: { 'b.d': 0 } }, { $unset: 'x.arr' }]).toArray(), [
    { ...original, b: { c: 2 }, x: {} }
  ])
  t.same(await fc.findOne({}), original)
})
