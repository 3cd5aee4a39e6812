import t from 'tap'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const c = h.db.collection('p')
await c.insertMany([
  {
    _id: 1 as never,
    a: 1,
    b: { c: 2, d: 3 },
    arr: [1, 2, 3, 4, 5],
    items: [
      { k: 'x', v: 1 },
      { k: 'y', v: 2 }
    ]
  },
  { _id: 2 as never, a: 2, b: { c: 4 }, arr: [], items: [{ k: 'y', v: 3 }] }
])

t.test('inclusion and exclusion', async (t) => {
  t.same(await c.findOne({ _id: 1 as never }, { projection: { a: 1 } }), { _id: 1, a: 1 })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { a: 1, _id: 0 } }), { a: 1 })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { 'b.c': 1 } }), { _id: 1, b: { c: 2 } })
  t.same(await c.findOne({ _id: 2 as never }, { projection: { arr: 0, items: 0, b: 0 } }), { _id: 2, a: 2 })
  t.same(await c.findOne({ _id: 1 as never }, { projection: { 'items.k': 1, _id: 0 } }), {
    items: [{ k: 'x' }, { k: 'y' }]
  })
})

t.test('$slice, $elemMatch and positional $', async (t) => {
  t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: 2 }, _id: 0, a: 1 } }), {
    a: 1,
    arr: [1, 2]
  })
  t.same((await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: -2 } } }))?.arr, [4, 5])
  t.same((await c.findOne({ _id: 1 as never }, { projection: { arr: { $slice: [1, 2] } } }))?.arr, [2, 3])
  t.same(await c.findOne({ _id: 1 as never }, { projection: { items: { $elemMatch: { k: 'y' } } } }), {
    _id: 1,
    items: [{ k: 'y', v: 2 }]
  })
  t.same(await c.findOne({ 'items.k': 'y', _id: 1 as never }, { projection: { 'items.$': 1 } }), {
    _id: 1,
    items: [{ k: 'y', v: 2 }]
  })
})

t.test('computed fields', async (t) => {
  t.same(await c.findOne({ _id: 1 as never }, { projection: { _id: 0, sum: { $add: ['$a', '$b.c'] } } }), { sum: 3 })
})

t.test('invalid projections are refused', async (t) => {
  const e1 = await mongoError(async () => await c.findOne({}, { projection: { a: 1, b: 0 } }))
  t.equal(e1.code, 31254)
  t.equal(e1.message, 'Cannot do exclusion on field b in inclusion projection')
  const e2 = await mongoError(async () => await c.findOne({}, { projection: { a: 0, b: 1 } }))
  t.equal(e2.code, 31253)
  const e3 = await mongoError(async () => await c.findOne({}, { projection: { b: 1, 'b.c': 1 } }))
  t.equal(e3.code, 31250)
  t.equal(e3.message, 'Path collision at b.c remaining portion c')
  const e4 = await mongoError(async () => await c.findOne({}, { projection: { x: { $nope: 1 } } }))
  t.equal(e4.code, 168)
})

t.test(
  '$elemMatch projection with a condition of operators only applies it to the element (as the query operator)',
  async (t) => {
    t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $elemMatch: { $in: [4, 2] } } } }), {
      _id: 1,
      arr: [2]
    })
    t.same(await c.findOne({ _id: 1 as never }, { projection: { arr: { $elemMatch: { $gte: 3, $lt: 5 } } } }), {
      _id: 1,
      arr: [3]
    })
    t.same(await c.findOne({ _id: 1 as never }, { projection: { items: { $elemMatch: { v: { $gt: 1 } } } } }), {
      _id: 1,
      items: [{ k: 'y', v: 2 }]
    })
    t.same(
      await c.findOne({ _id: 2 as never }, { projection: { arr: { $elemMatch: { $gt: 0 } } } }),
      { _id: 2 },
      'no match: no field'
    )
  }
)
