import t from 'tap'
import { Decimal128, ObjectId } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const sales = h.db.collection('sales')
await sales.insertMany([
  { _id: 1 as never, item: 'a', price: 10, qty: 2, tags: ['x', 'y'], date: new Date('2024-01-05') },
  { _id: 2 as never, item: 'b', price: 20, qty: 1, tags: ['y'], date: new Date('2024-02-10') },
  { _id: 3 as never, item: 'a', price: 10, qty: 5, tags: [], date: new Date('2024-02-11') },
  { _id: 4 as never, item: 'c', price: 5, qty: 10, date: new Date('2024-03-01') }
])
const run = async (p: object[]): Promise<unknown[]> => await sales.aggregate(p).toArray()

t.test('$group accumulators', async (t) => {
  t.same(
    await run([
      {
        $group: {
          _id: '$item',
          total: { $sum: { $multiply: ['$price', '$qty'] } },
          n: { $sum: 1 },
          avgQty: { $avg: '$qty' },
          maxQ: { $max: '$qty' },
          ids: { $push: '$_id' },
          first: { $first: '$qty' }
        }
      },
      { $sort: { _id: 1 } }
    ]),
    [
      { _id: 'a', total: 70, n: 2, avgQty: 3.5, maxQ: 5, ids: [1, 3], first: 2 },
      { _id: 'b', total: 20, n: 1, avgQty: 1, maxQ: 1, ids: [2], first: 1 },
      { _id: 'c', total: 50, n: 1, avgQty: 10, maxQ: 10, ids: [4], first: 10 }
    ]
  )
})

t.test('$unwind, $count, $sortByCount, $addFields, $project, $replaceRoot', async (t) => {
  t.same(await run([{ $unwind: '$tags' }, { $count: 'n' }]), [{ n: 3 }])
  t.same(await run([{ $unwind: { path: '$tags', preserveNullAndEmptyArrays: true } }, { $count: 'n' }]), [{ n: 5 }])
  t.same(await run([{ $unwind: '$tags' }, { $sortByCount: '$tags' }]), [
    { _id: 'y', count: 2 },
    { _id: 'x', count: 1 }
  ])
  t.same(
    await run([
      { $match: { _id: 2 } },
      { $addFields: { total: { $multiply: ['$price', '$qty'] } } },
      { $project: { _id: 0, total: 1, month: { $month: '$date' } } }
    ]),
    [{ total: 20, month: 2 }]
  )
  t.same(await run([{ $match: { _id: 4 } }, { $replaceRoot: { newRoot: { i: '$item' } } }]), [{ i: 'c' }])
  t.same(
    await run([
      { $match: { _id: 4 } },
      { $set: { s: { $concat: ['$item', '-', { $toString: '$qty' }] } } },
      { $project: { s: 1 } }
    ]),
    [{ _id: 4, s: 'c-10' }]
  )
})

t.test('$bucket, $facet, $skip/$limit, $sample', async (t) => {
  t.same(
    await run([
      { $bucket: { groupBy: '$price', boundaries: [0, 10, 100], default: 'other', output: { n: { $sum: 1 } } } }
    ]),
    [
      { _id: 0, n: 1 },
      { _id: 10, n: 3 }
    ]
  )
  const [f] = (await run([
    {
      $facet: {
        cheap: [{ $match: { price: { $lt: 10 } } }, { $count: 'n' }],
        items: [{ $group: { _id: null, s: { $addToSet: '$item' } } }]
      }
    }
  ])) as Array<{ cheap: unknown[]; items: Array<{ s: string[] }> }>
  t.same(f.cheap, [{ n: 1 }])
  t.same(f.items[0].s.sort(), ['a', 'b', 'c'])
  t.same(
    (await run([{ $sort: { _id: 1 } }, { $skip: 1 }, { $limit: 2 }])).map((d: any) => d._id),
    [2, 3]
  )
  const s = await run([{ $sample: { size: 2 } }])
  t.equal(s.length, 2)
})

t.test('expressions: $cond, $ifNull, $filter, $map, $dateToString, comparisons', async (t) => {
  t.same(
    await run([
      { $match: { _id: 1 } },
      {
        $project: {
          _id: 0,
          big: { $cond: [{ $gte: ['$qty', 2] }, 'yes', 'no'] },
          miss: { $ifNull: ['$nope', 'dflt'] },
          ys: { $filter: { input: '$tags', cond: { $eq: ['$$this', 'y'] } } },
          up: { $map: { input: '$tags', in: { $toUpper: '$$this' } } },
          d: { $dateToString: { format: '%Y-%m-%d', date: '$date' } },
          cmp: { $cmp: ['$price', 10] }
        }
      }
    ]),
    [{ big: 'yes', miss: 'dflt', ys: ['y'], up: ['X', 'Y'], d: '2024-01-05', cmp: 0 }]
  )
})

t.test('ObjectId values group and compare by value', async (t) => {
  const c = h.db.collection('oids')
  const a = new ObjectId()
  await c.insertMany([{ r: a }, { r: new ObjectId(a.toHexString()) }, { r: new ObjectId() }])
  const g = await c.aggregate([{ $group: { _id: '$r', n: { $sum: 1 } } }, { $sort: { n: -1 } }]).toArray()
  t.equal(g.length, 2)
  t.equal(g[0].n, 2)
  t.same(await c.aggregate([{ $match: { $expr: { $eq: ['$r', a] } } }, { $count: 'n' }]).toArray(), [{ n: 2 }])
})

t.test('$out writes a collection', async (t) => {
  await sales.aggregate([{ $match: { item: 'a' } }, { $project: { qty: 1 } }, { $out: 'a_sales' }]).toArray()
  t.same(await h.db.collection('a_sales').find().sort({ _id: 1 }).toArray(), [
    { _id: 1, qty: 2 },
    { _id: 3, qty: 5 }
  ])
})

t.test('pipeline errors', async (t) => {
  const e1 = await mongoError(async () => await run([{ $foo: {} }]))
  t.equal(e1.code, 40324)
  t.equal(e1.message, "Unrecognized pipeline stage name: '$foo'")
  const e2 = await mongoError(async () => await run([{ $project: { x: { $foo: 1 } } }]))
  t.equal(e2.code, 168)
  t.equal(e2.message, "Invalid $project :: caused by :: Unrecognized expression '$foo'")
  const e3 = await mongoError(async () => await run([{ $group: { _id: null, x: { $foo: 1 } } }]))
  t.equal(e3.code, 15952)
  const e4 = await mongoError(async () => await run([{ $match: {}, $limit: 1 }]))
  t.equal(e4.code, 40323)
  const e5 = await mongoError(async () => await run([{ $out: 'x' }, { $limit: 1 }]))
  t.equal(e5.code, 40601)
  const e6 = await mongoError(async () => await run([{ $setWindowFields: { output: {} } }]))
  t.equal(e6.code, 238, '$setWindowFields is refused')
  const e7 = await mongoError(async () => await run([{ $merge: { into: 'x' } }, { $limit: 1 }]))
  t.equal(e7.code, 40601)
})

t.test('output field order follows mongod', async (t) => {
  const c = h.db.collection('order')
  await c.insertOne({ _id: 1 as never, z: 1, a: { y: 1, b: 2 }, m: 3 })
  const p = await c.aggregate([{ $project: { m: 1, z: 1, c: { $add: ['$m', 1] }, b: '$z' } }]).toArray()
  t.same(
    Object.keys(p[0]),
    ['_id', 'z', 'm', 'c', 'b'],
    'included fields in document order, then computed in spec order'
  )
  const f = await c.find({}, { projection: { 'a.b': 1, 'a.y': 1 } }).toArray()
  t.same(Object.keys(f[0].a), ['y', 'b'])
  const s = await c.aggregate([{ $addFields: { q: 1, a: 5 } }]).toArray()
  t.same(Object.keys(s[0]), ['_id', 'z', 'a', 'm', 'q'])
  const b = await c.aggregate([{ $bucketAuto: { groupBy: '$m', buckets: 1 } }]).toArray()
  t.same(Object.keys(b[0]), ['_id', 'count'])
})

t.test('expression and accumulator edge cases', async (t) => {
  t.same(
    await run([
      { $group: { _id: '$item', top: { $top: { sortBy: { qty: -1 }, output: '$_id' } } } },
      { $sort: { _id: 1 } }
    ]),
    [
      { _id: 'a', top: 3 },
      { _id: 'b', top: 2 },
      { _id: 'c', top: 4 }
    ],
    '$top yields the value itself'
  )
  const e = await mongoError(async () => await run([{ $project: { n: { $size: '$nope' } } }]))
  t.equal(e.code, 17124)
  t.equal(e.message, 'The argument to $size must be an array. Type of the argument was: missing')
  t.same(
    await run([
      { $match: { _id: 3 } },
      {
        $project: {
          _id: 0,
          f: { $first: '$tags' },
          l: { $last: '$tags' },
          y: { $year: '$nope' },
          d: { $dateToString: { date: '$nope', onNull: 'none' } }
        }
      }
    ]),
    [{ y: null, d: 'none' }],
    '$first/$last of [] are missing; date parts of missing are null'
  )
})

t.test('Decimal128 sums and averages are exact decimals', async (t) => {
  const c = h.db.collection('decs')
  await c.insertMany([{ d: Decimal128.fromString('1.5') }, { d: 2 }, { d: Decimal128.fromString('0.10') }])
  const [r] = await c.aggregate([{ $group: { _id: null, s: { $sum: '$d' }, a: { $avg: '$d' } } }]).toArray()
  t.ok(r.s instanceof Decimal128)
  t.equal(String(r.s), '3.60', "the operands' largest scale, as decimal arithmetic keeps it")
  t.equal(String(r.a), '1.2')
  t.same(
    await c.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray(),
    [{ _id: null, n: 3 }],
    'counting still works'
  )
})

t.test('pipelines never modify stored documents', async (t) => {
  const c = h.db.collection('immut')
  await c.insertOne({ _id: 1 as never, a: { b: 1 }, arr: [1, 2] })
  await c.aggregate([{ $addFields: { 'a.c': 5 } }, { $unwind: { path: '$arr', includeArrayIndex: 'i' } }]).toArray()
  await c.aggregate([{ $group: { _id: null, docs: { $push: '$$ROOT' } } }]).toArray()
  t.same(await c.findOne({ _id: 1 as never }), { _id: 1, a: { b: 1 }, arr: [1, 2] })
})

t.test('$merge', async (t) => {
  const target = h.db.collection('merged')
  await target.insertMany([
    { _id: 1 as never, item: 'old', keep: true },
    { _id: 9 as never, item: 'z' }
  ])
  await sales
    .aggregate([{ $match: { _id: { $in: [1, 2] } } }, { $project: { item: 1 } }, { $merge: { into: 'merged' } }])
    .toArray()
  t.same(
    await target.find().sort({ _id: 1 }).toArray(),
    [
      { _id: 1, item: 'a', keep: true },
      { _id: 2, item: 'b' },
      { _id: 9, item: 'z' }
    ],
    'merge + insert by default'
  )
  await sales
    .aggregate([
      { $match: { _id: { $in: [1, 3] } } },
      { $project: { qty: 1 } },
      { $merge: { into: 'merged', whenMatched: 'replace', whenNotMatched: 'discard' } }
    ])
    .toArray()
  t.same(await target.find().sort({ _id: 1 }).toArray(), [
    { _id: 1, qty: 2 },
    { _id: 2, item: 'b' },
    { _id: 9, item: 'z' }
  ])
  const e = await mongoError(
    async () => await sales.aggregate([{ $project: { item: 1 } }, { $merge: { into: 'merged', on: 'item' } }]).toArray()
  )
  t.equal(e.code, 51183, "'on' fields need a unique index")
  const e2 = await mongoError(
    async () =>
      await sales.aggregate([{ $match: { _id: 2 } }, { $merge: { into: 'merged', whenMatched: 'fail' } }]).toArray()
  )
  t.equal(e2.code, 11000)
  const e3 = await mongoError(
    async () =>
      await sales.aggregate([{ $match: { _id: 4 } }, { $merge: { into: 'merged', whenNotMatched: 'fail' } }]).toArray()
  )
  t.equal(e3.code, 13113)
  const byItem = h.db.collection('byItem')
  await byItem.createIndex({ item: 1 }, { unique: true })
  await sales
    .aggregate([
      { $group: { _id: '$item', n: { $sum: 1 } } },
      { $project: { _id: 0, item: '$_id', n: 1 } },
      { $merge: { into: 'byItem', on: 'item' } }
    ])
    .toArray()
  t.same(
    await byItem
      .find({}, { projection: { _id: 0 } })
      .sort({ item: 1 })
      .toArray(),
    [
      { item: 'a', n: 2 },
      { item: 'b', n: 1 },
      { item: 'c', n: 1 }
    ]
  )
})

t.test('expressions devdb adds to mingo', async (t) => {
  const [r] = (await run([
    { $match: { _id: 1 } },
    {
      $project: {
        _id: 0,
        i: { $indexOfCP: ['héllo wörld', 'wö'] },
        miss: { $indexOfCP: ['abc', 'z'] },
        oid: { $toObjectId: '64b000000000000000000001' },
        size: { $bsonSize: { a: 1 } },
        bytes: { $binarySize: 'héllo' }
      }
    }
  ])) as Array<Record<string, any>>
  t.equal(r.i, 6)
  t.equal(r.miss, -1)
  t.ok(r.oid instanceof ObjectId)
  t.equal(r.oid.toHexString(), '64b000000000000000000001')
  t.equal(r.size, 12)
  t.equal(r.bytes, 6)
  const e = await mongoError(async () => await run([{ $project: { o: { $toObjectId: 'nope' } } }]))
  t.equal(e.code, 241)
})

t.test('parse errors carry the stage context like mongod', async (t) => {
  const e = await mongoError(async () => await run([{ $addFields: { x: { $foo: 1 } } }]))
  t.equal(e.code, 168)
  t.equal(e.message, "Invalid $addFields :: caused by :: Unrecognized expression '$foo'")
  const e2 = await mongoError(async () => await run([{ $addFields: { $bad: 'v' } }]))
  t.equal(e2.code, 16410)
  t.equal(
    e2.message,
    "Invalid $addFields :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField."
  )
  const e3 = await mongoError(async () => await run([{ $group: { _id: { $foo: 1 } } }]))
  t.equal(e3.message, "Unrecognized expression '$foo'")
})
