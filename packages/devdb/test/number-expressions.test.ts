import t from 'tap'
import { Decimal128, Double, Long, MongoClient, type Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const raw = new MongoClient(h.server.uri, { promoteValues: false })
await raw.connect()
t.teardown(async () => {
  await raw.close()
})
const c = h.db.collection('one')
await c.insertOne({
  _id: 1 as never,
  arr: [3, new Double(1), Long.fromNumber(2), 1],
  mixed: [new Double(1), 'a', Long.fromNumber(1), 1]
})

/** Evaluates `expr` against the one document; `typed` answers the value as `Type(value)`. */
async function ev (expr: unknown): Promise<unknown> {
  const [r] = await c.aggregate([{ $project: { _id: 0, v: expr } }]).toArray()
  return r.v
}
async function typed (expr: unknown): Promise<string> {
  const [r] = await raw
    .db('test')
    .collection('one')
    .aggregate([{ $project: { _id: 0, v: expr } }])
    .toArray()
  const v = r.v as { _bsontype?: string }
  return `${v?._bsontype ?? typeof v}(${String(v)})`
}

t.test('$round (half to even) and $trunc at places, as in the MongoDB manual', async (t) => {
  for (const [v, place, round, trunc] of [
    [19.25, 1, 19.2, 19.2],
    [28.73, 1, 28.7, 28.7],
    [-45.39, 1, -45.4, -45.3],
    [19.25, -1, 20, 10],
    [28.73, -1, 30, 20],
    [-45.39, -1, -50, -40]
  ] as const) {
    t.equal(await ev({ $round: [v, place] }), round, `$round ${v} ${place}`)
    t.equal(await ev({ $trunc: [v, place] }), trunc, `$trunc ${v} ${place}`)
  }
  t.same(await Promise.all([10.5, 11.5, 12.5, -12.5].map(async (v) => await ev({ $round: [v, 0] }))), [10, 12, 12, -12])
  t.equal(await typed({ $round: [1234, -2] }), 'Int32(1200)', 'an int stays an int')
  t.equal(await typed({ $trunc: [Long.fromNumber(1299), -2] }), 'Long(1200)')
  t.equal(await typed({ $round: [Decimal128.fromString('2.345'), 2] }), 'Decimal128(2.34)')
})

t.test('math functions answer doubles (decimals for decimals)', async (t) => {
  t.equal(await typed({ $log: [100, 10] }), 'Double(2)')
  t.equal(await typed({ $exp: 0 }), 'Double(1)')
  t.equal(await typed({ $ln: 1 }), 'Double(0)')
  t.equal(await typed({ $log10: 1000 }), 'Double(3)')
  t.equal(await typed({ $sqrt: Decimal128.fromString('2.25') }), 'Decimal128(1.5)')
  t.equal(await typed({ $cos: 0 }), 'Double(1)')
  t.equal(await typed({ $pow: [5, -2] }), 'Double(0.04)')
  t.equal(await typed({ $pow: [5, 2] }), 'Int32(25)')
  t.equal(await typed({ $pow: [2, 70] }), 'Double(1.1805916207174113e+21)', 'past int64: a double')
  t.equal(await typed({ $mod: [-5, 3] }), 'Int32(-2)', "the dividend's sign")
  t.equal(await typed({ $mod: [5.5, 2] }), 'Double(1.5)')
  t.equal(await typed({ $abs: -2147483648 }), 'Long(2147483648)')
  t.equal(await typed({ $ceil: 1.2 }), 'Double(2)')
  t.equal(await typed({ $subtract: [Long.fromNumber(5), new Double(0.5)] }), 'Double(4.5)')
  t.equal(
    await typed({ $multiply: [Long.fromString('4611686018427387904'), 4] }),
    'Double(18446744073709552000)',
    'a long product past int64 is a double'
  )
  t.equal(((await ev({ $add: [new Date(1000), Long.fromNumber(500)] })) as Date).getTime(), 1500)
  t.equal((await mongoError(async () => await ev({ $pow: [0, -1] }))).code, 28764)
  t.equal((await mongoError(async () => await ev({ $ln: 0 }))).code, 28766)
  t.equal((await mongoError(async () => await ev({ $log: [10, 1] }))).code, 28759)
  t.equal((await mongoError(async () => await ev({ $abs: Long.MIN_VALUE }))).code, 28680)
  t.equal((await mongoError(async () => await ev({ $add: [new Date(), new Date()] }))).code, 16612)
  t.equal((await mongoError(async () => await ev({ $subtract: [1, new Date()] }))).code, 16556)
})

t.test('bitwise operators keep int or long', async (t) => {
  t.equal(await typed({ $bitAnd: [12, 10] }), 'Int32(8)')
  t.equal(await typed({ $bitOr: [12, 10] }), 'Int32(14)')
  t.equal(await typed({ $bitXor: [12, Long.fromNumber(10)] }), 'Long(6)')
  t.equal(await typed({ $bitNot: 12 }), 'Int32(-13)')
  t.equal((await mongoError(async () => await ev({ $bitAnd: [1, 1.5] }))).code, 28765)
})

t.test('conversions', async (t) => {
  t.equal(await typed({ $toInt: '-42' }), 'Int32(-42)')
  t.equal(await typed({ $toLong: new Date(7) }), 'Long(7)')
  t.equal(await typed({ $toDouble: '1e3' }), 'Double(1000)')
  t.equal(await typed({ $toDouble: true }), 'Double(1)')
  t.equal(await typed({ $toDecimal: 0.25 }), 'Decimal128(0.25)')
  t.equal(await typed({ $toInt: Decimal128.fromString('-7.9') }), 'Int32(-7)', 'truncated')
  t.equal(await typed({ $convert: { input: '12', to: 18 } }), 'Long(12)')
  t.equal(await typed({ $convert: { input: new Double(1), to: 'bool' } }), 'boolean(true)')
  t.equal(await typed({ $convert: { input: null, to: 'int', onNull: 'none' } }), 'string(none)')
  t.equal(await ev({ $toString: Long.fromString('9007199254740993') }), '9007199254740993')
  t.equal(await ev({ $toString: Decimal128.fromString('1.10') }), '1.10')
  t.equal(await ev({ $type: '$nope' }), 'missing')
  t.same(await ev({ $map: { input: '$arr', in: { $type: '$$this' } } }), ['int', 'double', 'long', 'int'])
  t.equal(await ev({ $isNumber: Decimal128.fromString('1') }), true)
  t.equal((await mongoError(async () => await ev({ $toInt: '1.5' }))).code, 241)
  t.equal((await mongoError(async () => await ev({ $toLong: 1e19 }))).code, 241)
  t.equal((await mongoError(async () => await ev({ $toInt: new Date() }))).code, 241)
})

t.test('truth, equality and sets by BSON value', async (t) => {
  t.equal(await ev({ $and: [1, new Double(0)] }), false)
  t.equal(await ev({ $or: [Long.fromNumber(0), Decimal128.fromString('0.0')] }), false)
  t.equal(await ev({ $not: [Long.fromNumber(0)] }), true)
  t.equal(
    await ev({
      $switch: {
        branches: [
          { case: new Double(0), then: 'a' },
          { case: Long.fromNumber(2), then: 'b' }
        ]
      }
    }),
    'b'
  )
  t.same(await ev({ $filter: { input: '$arr', cond: { $gt: ['$$this', new Double(1)] }, limit: new Double(1) } }), [3])
  t.same(await ev({ $filter: { input: [0, new Double(0), 2], cond: '$$this' } }), [2], "each element's own truth")
  t.equal(await ev({ $in: [new Double(2), '$arr'] }), true)
  t.equal(await ev({ $indexOfArray: ['$arr', Long.fromNumber(1)] }), 1)
  t.same(await ev({ $setUnion: ['$mixed', [2]] }), [1, 'a', 2], 'deduplicated by value')
  t.same(await ev({ $setIntersection: ['$arr', [Long.fromNumber(3), 9]] }), [3])
  t.same(await ev({ $setDifference: ['$arr', [new Double(3)]] }), [1, 2])
  t.equal(
    await ev({
      $setEquals: [
        [1, 2],
        [new Double(2), Long.fromNumber(1), 1]
      ]
    }),
    true
  )
  t.equal(await ev({ $setIsSubset: [[new Double(1)], '$arr'] }), true)
  t.equal(await ev({ $allElementsTrue: [[1, new Double(0)]] }), false)
  t.equal(await ev({ $anyElementTrue: [[0, Long.fromNumber(3)]] }), true)
  t.same(await ev({ $sortArray: { input: '$arr', sortBy: -1 } }), [3, 2, 1, 1])
  t.same(await ev({ $sortArray: { input: [{ n: Long.fromNumber(2) }, { n: new Double(1) }], sortBy: { n: 1 } } }), [
    { n: 1 },
    { n: 2 }
  ])
  t.same(await ev({ $maxN: { input: '$arr', n: 2 } }), [3, 2])
  t.same(await ev({ $minN: { input: '$arr', n: Long.fromNumber(2) } }), [1, 1])
  t.equal(await ev({ $arrayElemAt: ['$arr', new Double(2)] }), 2)
  t.same(await ev({ $slice: ['$arr', Long.fromNumber(1), 2] }), [1, 2])
  t.same(await ev({ $firstN: { input: '$arr', n: new Double(2) } }), [3, 1])
  t.same(await ev({ $lastN: { input: '$arr', n: Long.fromNumber(1) } }), [1])
  t.equal(await typed({ $median: { input: '$arr', method: 'approximate' } }), 'Double(1)')
  t.same(await ev({ $percentile: { input: '$arr', p: [0.5, 1], method: 'approximate' } }), [1, 3])
  t.equal(
    (await mongoError(async () => await ev({ $percentile: { input: '$arr', p: [2], method: 'approximate' } }))).code,
    7750301
  )
  t.equal((await mongoError(async () => await ev({ $median: { input: '$arr', method: 'exact' } }))).code, 2)
  t.equal((await mongoError(async () => await ev({ $maxN: { input: 'x', n: 1 } }))).code, 5788200)
  t.equal((await mongoError(async () => await ev({ $maxN: { input: '$arr', n: 0 } }))).code, 5787908)
  t.equal((await mongoError(async () => await ev({ $in: [1, 'x'] }))).code, 40081)
  t.equal((await mongoError(async () => await ev({ $setUnion: [[1], 'x'] }))).code, 17044)
  t.equal(await ev({ $setUnion: [[1], null] }), null)
  t.equal((await mongoError(async () => await ev({ $allElementsTrue: 'x' }))).code, 17040)
  t.equal((await mongoError(async () => await ev({ $cond: { if: true, then: 1 } }))).code, 17082)
  t.equal((await mongoError(async () => await ev({ $switch: { branches: [{ case: false, then: 1 }] } }))).code, 40066)
  t.equal(await ev({ $switch: { branches: [{ case: false, then: 1 }], default: Long.fromNumber(2) } }), 2)
  t.equal(await typed({ $arrayElemAt: ['$arr', 1] }), 'Double(1)', 'operands handed back keep their type')
  t.equal(await typed({ $first: ['$arr'] }), 'Int32(3)')
  t.equal(await typed({ $ifNull: ['$nope', Long.fromNumber(4)] }), 'Long(4)')
  t.equal(await ev({ $concat: ['n', { $toString: new Double(3) }] }), 'n3')
  t.equal(
    await ev({ $substrCP: ['abcdef', new Double(1), Long.fromNumber(2)] }),
    'bc',
    'mingo operators get plain numbers'
  )
  t.equal(
    await typed({ $dateDiff: { startDate: new Date(0), endDate: new Date(86_400_000 * 3), unit: 'day' } }),
    'Long(3)'
  )
})

t.test('accumulators', async (t) => {
  const g = h.db.collection('acc')
  await g.insertMany([{ v: 1 }, { v: 2 }, { v: new Double(3) }, { v: Long.fromNumber(4) }, { v: 'x' }, { v: null }, {}])
  const [r] = await raw
    .db('test')
    .collection('acc')
    .aggregate([
      {
        $group: {
          _id: null,
          pop: { $stdDevPop: '$v' },
          samp: { $stdDevSamp: '$v' },
          median: { $median: { input: '$v', method: 'approximate' } },
          pct: { $percentile: { input: '$v', p: [0.25, 1], method: 'approximate' } },
          max: { $max: '$v' },
          min: { $min: '$v' },
          maxN: { $maxN: { input: '$v', n: 2 } },
          avg: { $avg: '$v' }
        }
      }
    ])
    .toArray()
  const s = (v: unknown): string => `${(v as { _bsontype?: string })?._bsontype ?? typeof v}(${String(v)})`
  t.equal(s(r.pop), 'Double(1.118033988749895)')
  t.equal(s(r.samp), 'Double(1.2909944487358056)')
  t.equal(s(r.median), 'Double(2)')
  t.same((r.pct as unknown[]).map(s), ['Double(1)', 'Double(4)'])
  t.equal(r.max, 'x', 'BSON order: strings above numbers')
  t.equal(s(r.min), 'Int32(1)', 'null and missing are skipped')
  t.same((r.maxN as unknown[]).map(s), ['string(x)', 'Long(4)'])
  t.equal(s(r.avg), 'Double(2.5)')
  t.same(
    await g.aggregate([{ $match: { v: { $type: 'number' } } }, { $sortByCount: { $mod: ['$v', 2] } }]).toArray(),
    [
      { _id: 1, count: 2 },
      { _id: 0, count: 2 }
    ].sort((a, b) => b.count - a.count || 0),
    '$sortByCount groups by value'
  )
  t.same(
    await g.aggregate([{ $group: { _id: '$nope', n: { $sum: 1 } } }]).toArray(),
    [{ _id: null, n: 7 }],
    'a missing key is the null group'
  )
  t.same(
    await g.aggregate([{ $project: { _id: 0, s: { $sum: [1, Long.fromNumber(2), 'x'] } } }, { $limit: 1 }]).toArray(),
    [{ s: 3 }],
    'expression form'
  )
})

t.test('typed update operators', async (t) => {
  const u = raw.db('test').collection('upd')
  const s = (v: unknown): string => `${(v as { _bsontype?: string })?._bsontype ?? typeof v}(${String(v)})`
  await u.insertOne({ _id: 1, a: Long.fromNumber(5), b: 5, l: Long.fromNumber(12), i: 13, arr: [1, 2, 3] } as never)
  await u.updateOne({ _id: 1 as never }, {
    $min: { a: new Double(3) },
    $max: { b: new Double(5), c: Long.fromNumber(1) },
    $bit: { l: { and: 10 }, i: { xor: 1 } }
  } as never)
  await u.updateOne({ _id: 1 as never }, {
    $push: { arr: { $each: [new Double(9), 0], $position: new Double(1), $slice: Long.fromNumber(-4) } }
  } as never)
  const got = (await u.findOne({ _id: 1 as never })) as Document
  t.same(
    [s(got.a), s(got.b), s(got.c), s(got.l), s(got.i)],
    ['Double(3)', 'Int32(5)', 'Long(1)', 'Long(8)', 'Int32(12)']
  )
  t.same((got.arr as unknown[]).map(s), ['Double(9)', 'Int32(0)', 'Int32(2)', 'Int32(3)'])
  t.equal(
    Number((await mongoError(async () => await u.updateOne({ _id: 1 as never }, { $bit: { a: { and: 1 } } }))).code),
    2,
    '$bit on a double'
  )
  await u.updateOne({ _id: 1 as never }, { $inc: { 'arr.$[x]': 1 } }, { arrayFilters: [{ x: { $gte: 3 } }] })
  t.same(
    (((await u.findOne({ _id: 1 as never })) as Document).arr as unknown[]).map(s),
    ['Double(10)', 'Int32(0)', 'Int32(2)', 'Int32(4)'],
    'array filters by value, each element keeps its type'
  )
})
