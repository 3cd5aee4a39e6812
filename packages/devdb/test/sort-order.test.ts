import t from 'tap'
import { Binary, Decimal128, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t)

t.test('BSON comparison order across types', async (t) => {
  const c = h.db.collection('mixed')
  const values: Array<[string, unknown]> = [
    ['maxkey', new MaxKey()],
    ['regex', /abc/],
    ['timestamp', new Timestamp({ t: 1, i: 1 })],
    ['date', new Date(0)],
    ['bool', true],
    ['objectid', new ObjectId()],
    ['bindata', new Binary(Buffer.from('x'))],
    ['array', [5]],
    ['object', { a: 1 }],
    ['string', 'a'],
    ['number', 1],
    ['null', null],
    ['minkey', new MinKey()]
  ]
  await c.insertMany(values.map(([k, v]) => ({ k, v })))
  await c.insertOne({ k: 'missing' })
  const asc = (await c.find({}).sort({ v: 1, k: 1 }).toArray()).map((d) => d.k)
  t.same(
    asc,
    [
      'minkey',
      'missing',
      'null',
      'number',
      'array',
      'string',
      'object',
      'bindata',
      'objectid',
      'bool',
      'date',
      'timestamp',
      'regex',
      'maxkey'
    ],
    'array [5] sorts by its element 5 (a number)'
  )
})

t.test('numbers compare by value across types', async (t) => {
  const c = h.db.collection('nums')
  await c.insertMany([
    { k: 'd', v: Decimal128.fromString('2.5') },
    { k: 'l', v: Long.fromNumber(3) },
    { k: 'i', v: 1 },
    { k: 'f', v: -0.5 },
    { k: 'big', v: 1e20 }
  ])
  t.same(
    (await c.find({}).sort({ v: 1 }).toArray()).map((d) => d.k),
    ['f', 'i', 'd', 'l', 'big']
  )
  t.same(
    (await c.find({}).sort({ v: -1 }).toArray()).map((d) => d.k),
    ['big', 'l', 'd', 'i', 'f']
  )
})

t.test('arrays sort by min ascending and max descending; [] before null', async (t) => {
  const c = h.db.collection('arrs')
  await c.insertMany([
    { k: 'a', v: [1, 10] },
    { k: 'b', v: [5] },
    { k: 'c', v: [] },
    { k: 'd', v: null },
    { k: 'e', v: 3 }
  ])
  t.same(
    (await c.find({}).sort({ v: 1 }).toArray()).map((d) => d.k),
    ['c', 'd', 'a', 'e', 'b']
  )
  t.same(
    (await c.find({}).sort({ v: -1 }).toArray()).map((d) => d.k),
    ['a', 'b', 'e', 'd', 'c']
  )
})

t.test('strings compare binary, objects field by field', async (t) => {
  const c = h.db.collection('strs')
  await c.insertMany([{ v: 'b' }, { v: 'B' }, { v: 'a' }, { v: 'ab' }])
  t.same(
    (
      await c
        .find({}, { projection: { _id: 0 } })
        .sort({ v: 1 })
        .toArray()
    ).map((d) => d.v),
    ['B', 'a', 'ab', 'b']
  )
  const o = h.db.collection('objs')
  await o.insertMany([
    { k: 1, v: { a: 2 } },
    { k: 2, v: { a: 1, b: 1 } },
    { k: 3, v: { a: 1 } },
    { k: 4, v: { b: 0 } }
  ])
  t.same(
    (await o.find({}).sort({ v: 1 }).toArray()).map((d) => d.k),
    [3, 2, 1, 4]
  )
})

t.test('sort is stable for ties and works with skip/limit and $sort stage', async (t) => {
  const c = h.db.collection('ties')
  await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ i, g: i % 3 })))
  const r = await c.find({}).sort({ g: -1 }).limit(5).toArray()
  t.same(
    r.map((d) => d.i),
    [2, 5, 8, 11, 14]
  )
  const agg = await c.aggregate([{ $sort: { g: 1, i: -1 } }, { $limit: 3 }]).toArray()
  t.same(
    agg.map((d) => d.i),
    [18, 15, 12]
  )
})

t.test('$natural sort', async (t) => {
  const c = h.db.collection('nat')
  await c.insertMany([{ k: 'b' }, { k: 'a' }, { k: 'c' }])
  t.same(
    (await c.find({}).sort({ $natural: 1 }).toArray()).map((d) => d.k),
    ['b', 'a', 'c']
  )
  t.same(
    (await c.find({}).sort({ $natural: -1 }).limit(2).toArray()).map((d) => d.k),
    ['c', 'a']
  )
})
