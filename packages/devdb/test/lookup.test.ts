import t from 'tap'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t)
const orders = h.db.collection('orders')
const items = h.db.collection('items')
await orders.insertMany([
  { _id: 1 as never, sku: 'a', qty: 2 },
  { _id: 2 as never, sku: 'b', qty: 1 },
  { _id: 3 as never, sku: 'z', qty: 4 }
])
await items.insertMany([
  { _id: 'a' as never, name: 'Apple', price: 3 },
  { _id: 'b' as never, name: 'Bread', price: 2 }
])

t.test('$lookup localField/foreignField', async (t) => {
  const r = await orders
    .aggregate([
      { $lookup: { from: 'items', localField: 'sku', foreignField: '_id', as: 'item' } },
      { $sort: { _id: 1 } }
    ])
    .toArray()
  t.same(
    r.map((d) => d.item),
    [[{ _id: 'a', name: 'Apple', price: 3 }], [{ _id: 'b', name: 'Bread', price: 2 }], []]
  )
})

t.test('$lookup with let/pipeline', async (t) => {
  const r = await orders
    .aggregate([
      { $match: { _id: 1 } },
      {
        $lookup: {
          from: 'items',
          let: { s: '$sku', q: '$qty' },
          pipeline: [
            { $match: { $expr: { $eq: ['$_id', '$$s'] } } },
            { $project: { _id: 0, cost: { $multiply: ['$price', '$$q'] } } }
          ],
          as: 'c'
        }
      }
    ])
    .toArray()
  t.same(r[0].c, [{ cost: 6 }])
})

t.test('$lookup on a missing collection gives empty arrays', async (t) => {
  const r = await orders
    .aggregate([{ $match: { _id: 2 } }, { $lookup: { from: 'nope', localField: 'sku', foreignField: 'x', as: 'n' } }])
    .toArray()
  t.same(r[0].n, [])
})

t.test('$unionWith', async (t) => {
  const r = await orders
    .aggregate([{ $project: { _id: 1 } }, { $unionWith: { coll: 'items', pipeline: [{ $project: { _id: 1 } }] } }])
    .toArray()
  t.same(
    r.map((d) => d._id),
    [1, 2, 3, 'a', 'b']
  )
  const r2 = await orders.aggregate([{ $match: { _id: 1 } }, { $unionWith: 'items' }, { $count: 'n' }]).toArray()
  t.same(r2, [{ n: 3 }])
})

t.test('$lookup treats a missing local field as null and matches array elements', async (t) => {
  const l = h.db.collection('l_left')
  const r = h.db.collection('l_right')
  await l.insertMany([{ _id: 1, ks: ['a', 'b'] }, { _id: 2 }, { _id: 3, ks: 'c' }] as never)
  await r.insertMany([{ _id: 10, k: 'a' }, { _id: 11, k: ['b', 'c'] }, { _id: 12 }, { _id: 13, k: null }] as never)
  const out = await l
    .aggregate([
      { $lookup: { from: 'l_right', localField: 'ks', foreignField: 'k', as: 'm' } },
      { $project: { m: '$m._id' } },
      { $sort: { _id: 1 } }
    ])
    .toArray()
  t.same(out, [
    { _id: 1, m: [10, 11] },
    { _id: 2, m: [12, 13] },
    { _id: 3, m: [11] }
  ])
})

t.test('$count on no documents yields nothing', async (t) => {
  t.same(await orders.aggregate([{ $match: { qty: 999 } }, { $count: 'n' }]).toArray(), [])
})
