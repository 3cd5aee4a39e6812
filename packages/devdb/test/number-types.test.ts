import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Decimal128, Double, Int32, Long, MongoClient, type Document } from 'mongodb'
import { startDevDb } from '@svc/devdb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
/** A second client that keeps every BSON number as its wrapper class, so replies show their types. */
const raw = new MongoClient(h.server.uri, { promoteValues: false })
await raw.connect()
t.teardown(async () => {
  await raw.close()
})
const rdb = raw.db('test')

/** The BSON type of every numeric leaf, by path. */
function types (v: unknown, path = ''): Record<string, string> {
  const out: Record<string, string> = {}
  const t = (v as { _bsontype?: string } | null)?._bsontype
  if (t !== undefined && ['Int32', 'Double', 'Long', 'Decimal128'].includes(t)) {
    out[path] = `${t}(${String(v)})`
  } else if (Array.isArray(v)) v.forEach((x, i) => Object.assign(out, types(x, `${path}.${i}`)))
  else if (v !== null && typeof v === 'object' && !(v instanceof Date) && t === undefined) {
    for (const [k, x] of Object.entries(v)) Object.assign(out, types(x, path === '' ? k : `${path}.${k}`))
  }
  return out
}

const SAMPLE = {
  _id: 1,
  i: 5,
  d: new Double(5),
  frac: 5.5,
  zero: new Double(0),
  negz: -0,
  bigd: 1e20,
  l: Long.fromNumber(5),
  lbig: Long.fromString('9007199254740993'),
  dec: Decimal128.fromString('1.10'),
  nested: { arr: [new Double(1), Long.fromNumber(2), 3, new Int32(4)] }
}
const SAMPLE_TYPES = {
  _id: 'Int32(1)',
  i: 'Int32(5)',
  d: 'Double(5)',
  frac: 'Double(5.5)',
  zero: 'Double(0)',
  negz: 'Double(0)',
  bigd: 'Double(100000000000000000000)',
  l: 'Long(5)',
  lbig: 'Long(9007199254740993)',
  dec: 'Decimal128(1.10)',
  'nested.arr.0': 'Double(1)',
  'nested.arr.1': 'Long(2)',
  'nested.arr.2': 'Int32(3)',
  'nested.arr.3': 'Int32(4)'
}

t.test('every numeric type comes back as it went in, through every read path', async (t) => {
  await h.db.collection('nums').insertOne(SAMPLE as never)
  const c = rdb.collection('nums')
  t.same(types(await c.findOne({})), SAMPLE_TYPES, 'find')
  t.same(types((await c.find({}, { batchSize: 0 }).toArray())[0]), SAMPLE_TYPES, 'getMore')
  t.same(
    types((await c.aggregate([{ $match: { _id: 1 } }, { $addFields: { x: 1 } }]).toArray())[0]),
    { ...SAMPLE_TYPES, x: 'Int32(1)' },
    'aggregate'
  )
  t.same(
    types(await c.findOneAndUpdate({ _id: 1 as never }, { $set: { y: 1 } }, { returnDocument: 'before' })),
    SAMPLE_TYPES,
    'findAndModify'
  )
  t.same(
    (await c.distinct('nested.arr')).map((v: unknown) => types({ v }).v).sort(),
    ['Double(1)', 'Int32(3)', 'Int32(4)', 'Long(2)'],
    'distinct'
  )
  t.ok(Object.is((await h.db.collection('nums').findOne({}))?.negz, -0), '-0 stays -0')
})

t.test('types survive a restart (journal replay) and a compaction (snapshot)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'devdb-num-'))
  t.teardown(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const read = async (): Promise<Document | null> => {
    const server = await startDevDb({ port: 0, dbPath: dir })
    const client = new MongoClient(server.uri, { promoteValues: false })
    try {
      await client.connect()
      return await client.db('p').collection('nums').findOne({})
    } finally {
      await client.close()
      await server.stop()
    }
  }
  const server = await startDevDb({ port: 0, dbPath: dir, snapshotIntervalMs: 3_600_000 })
  const client = new MongoClient(server.uri)
  await client.connect()
  await client
    .db('p')
    .collection('nums')
    .insertOne(SAMPLE as never)
  await client.close()
  await server.stop()
  t.same(types(await read()), SAMPLE_TYPES, 'after a stop (final snapshot)')
  t.same(types(await read()), SAMPLE_TYPES, 'after reading the snapshot back')
})

t.test('$type tells int, long, double and decimal apart; values still compare across types', async (t) => {
  const c = h.db.collection('typed')
  await c.insertMany([
    { _id: 'int', v: 1 },
    { _id: 'double', v: new Double(1) },
    { _id: 'long', v: Long.fromNumber(1) },
    { _id: 'decimal', v: Decimal128.fromString('1') },
    { _id: 'frac', v: 1.5 }
  ] as never)
  const ids = async (f: Document): Promise<string[]> => (await c.find(f).toArray()).map((d) => String(d._id)).sort()
  t.same(await ids({ v: { $type: 'double' } }), ['double', 'frac'])
  t.same(await ids({ v: { $type: 'int' } }), ['int'])
  t.same(await ids({ v: { $type: 'long' } }), ['long'])
  t.same(await ids({ v: { $type: 'decimal' } }), ['decimal'])
  t.same(await ids({ v: { $type: 1 } }), ['double', 'frac'], 'numeric type code')
  t.same(await ids({ v: { $type: 'number' } }), ['decimal', 'double', 'frac', 'int', 'long'])
  t.same(await ids({ v: 1 }), ['decimal', 'double', 'int', 'long'], 'equality by value')
  t.same(await ids({ v: new Double(1) }), ['decimal', 'double', 'int', 'long'])
  t.same(await ids({ v: { $in: [Long.fromNumber(1)] } }), ['decimal', 'double', 'int', 'long'])
  t.same(
    (await c.find({}).sort({ v: -1, _id: 1 }).toArray()).map((d) => d._id),
    ['frac', 'decimal', 'double', 'int', 'long'],
    'sorted by value, ties by _id'
  )
})

t.test('a long past 2^53 compares exactly with doubles and longs', async (t) => {
  const c = h.db.collection('wide')
  const big = Long.fromString('9007199254740993') // 2^53 + 1, not a double
  await c.insertMany([
    { _id: 'big', v: big },
    { _id: 'next', v: Long.fromString('9007199254740992') }
  ] as never)
  t.same(
    (await c.find({ v: { $gt: 2 ** 53 } }).toArray()).map((d) => d._id),
    ['big'],
    '2^53 + 1 > 2^53 (double)'
  )
  t.same(
    (await c.find({ v: 2 ** 53 }).toArray()).map((d) => d._id),
    ['next']
  )
  await c.createIndex({ v: 1 })
  t.same(
    (await c.find({ v: { $gte: big } }).toArray()).map((d) => d._id),
    ['big'],
    'through the index'
  )
  await c.updateOne({ _id: 'big' as never }, { $inc: { v: 1 } })
  t.equal(
    String((await rdb.collection('wide').findOne({ _id: 'big' as never }))?.v),
    '9007199254740994',
    '$inc on a long is exact'
  )
})

t.test('a unique index treats 1, 1.0, NumberLong(1) and NumberDecimal("1") as one key', async (t) => {
  const c = h.db.collection('uniq')
  await c.createIndex({ k: 1 }, { unique: true })
  await c.insertOne({ k: 1 })
  for (const k of [new Double(1), Long.fromNumber(1), Decimal128.fromString('1.0')]) {
    t.equal(
      (await mongoError(async () => await c.insertOne({ k }))).code,
      11000,
      `${String((k as { _bsontype: string })._bsontype)} duplicates 1`
    )
  }
})

t.test('$inc and $mul promote like mongod', async (t) => {
  const c = rdb.collection('inc')
  await c.insertOne({
    _id: 1,
    i: 1,
    d: new Double(1),
    l: Long.fromNumber(1),
    max: 2147483647,
    lmax: Long.MAX_VALUE,
    dec: Decimal128.fromString('1.5')
  } as never)
  await c.updateOne({ _id: 1 as never }, { $inc: { i: 1, d: 1, l: 1, max: 1, dec: 1, newI: 2, newD: new Double(3) } })
  await c.updateOne({ _id: 1 as never }, { $mul: { missingD: new Double(2), missingL: Long.fromNumber(2), m2: 7 } })
  const got = types(await c.findOne({ _id: 1 as never }))
  t.match(got, {
    i: 'Int32(2)',
    d: 'Double(2)',
    l: 'Long(2)',
    max: 'Long(2147483648)',
    dec: 'Decimal128(2.5)',
    newI: 'Int32(2)',
    newD: 'Double(3)',
    missingD: 'Double(0)',
    missingL: 'Long(0)',
    m2: 'Int32(0)'
  })
  const e = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $inc: { lmax: 1 } }))
  t.equal(Number(e.code), 2, 'a long that overflows is an error (SafeNum)')
  t.equal(String((await c.findOne({ _id: 1 as never }))?.lmax), Long.MAX_VALUE.toString(), 'and nothing changed')
  await c.updateOne({ _id: 1 as never }, { $inc: { i: 0.5 } })
  t.match(types(await c.findOne({ _id: 1 as never })), { i: 'Double(2.5)' }, 'an int plus a double is a double')
})

t.test('positional $inc/$push/$addToSet keep types and compare by value', async (t) => {
  const c = rdb.collection('pos')
  await c.insertOne({
    _id: 1,
    a: [
      { n: new Double(1), tag: 'x' },
      { n: Long.fromNumber(5), tag: 'y' }
    ],
    s: [1, 2]
  } as never)
  await c.updateOne({ _id: 1 as never, 'a.tag': 'y' }, { $inc: { 'a.$.n': 1 } })
  await c.updateOne({ _id: 1 as never }, { $inc: { 'a.$[e].n': new Double(1) } }, { arrayFilters: [{ 'e.tag': 'x' }] })
  await c.updateOne({ _id: 1 as never }, { $addToSet: { s: { $each: [new Double(2), Long.fromNumber(1), 3] } } })
  await c.updateOne({ _id: 1 as never }, { $push: { s: { $each: [new Double(0)], $sort: -1 } } } as never)
  const got = await c.findOne({ _id: 1 as never })
  t.same(types(got), {
    _id: 'Int32(1)',
    'a.0.n': 'Double(2)',
    'a.1.n': 'Long(6)',
    's.0': 'Int32(3)',
    's.1': 'Int32(2)',
    's.2': 'Int32(1)',
    's.3': 'Double(0)'
  })
})

t.test('a change of type alone is a modification', async (t) => {
  const c = rdb.collection('retype')
  await c.insertOne({ _id: 1, v: 1 } as never)
  const r = await c.updateOne({ _id: 1 as never }, { $set: { v: new Double(1) } })
  t.equal(Number(r.modifiedCount), 1)
  t.same(types(await c.findOne({ _id: 1 as never })), { _id: 'Int32(1)', v: 'Double(1)' })
  t.equal(
    Number((await c.updateOne({ _id: 1 as never }, { $set: { v: new Double(1) } })).modifiedCount),
    0,
    'the same value and type: not modified'
  )
})

t.test("aggregation results carry mongod's types", async (t) => {
  await h.db.collection('agg').insertMany([
    { g: 1, i: 1, l: Long.fromNumber(10), d: new Double(2), big: 2147483647 },
    { g: new Double(1), i: 3, l: Long.fromNumber(20), d: 0.5, big: 1 },
    { g: Long.fromNumber(1), i: 2, l: Long.fromNumber(30), d: new Double(0), big: 0 }
  ] as never)
  const [r] = await rdb
    .collection('agg')
    .aggregate([
      {
        $group: {
          _id: '$g',
          sumI: { $sum: '$i' },
          sumL: { $sum: '$l' },
          sumD: { $sum: '$d' },
          sumBig: { $sum: '$big' },
          avgI: { $avg: '$i' },
          maxL: { $max: '$l' },
          minD: { $min: '$d' },
          set: { $addToSet: '$g' },
          n: { $sum: 1 }
        }
      }
    ])
    .toArray()
  t.same(
    types(r),
    {
      _id: 'Int32(1)',
      sumI: 'Int32(6)',
      sumL: 'Long(60)',
      sumD: 'Double(2.5)',
      sumBig: 'Long(2147483648)',
      avgI: 'Double(2)',
      maxL: 'Long(30)',
      minD: 'Double(0)',
      'set.0': 'Int32(1)',
      n: 'Int32(3)'
    },
    '1, 1.0 and NumberLong(1) are one group and one set member'
  )

  const [p] = await rdb
    .collection('agg')
    .aggregate([
      { $match: { i: 1 } },
      {
        $project: {
          _id: 0,
          div: { $divide: [4, 2] },
          addL: { $add: ['$l', 1] },
          addD: { $add: ['$d', 1] },
          mul: { $multiply: ['$i', 2147483647, 2] },
          mod: { $mod: ['$l', 3] },
          toL: { $toLong: '$i' },
          toD: { $toDouble: '$i' },
          toI: { $toInt: '$d' },
          toDec: { $toDecimal: '$i' },
          type: { $type: '$d' },
          round: { $round: [new Double(2.5), 0] },
          floor: { $floor: '$d' },
          abs: { $abs: Long.fromNumber(-3) },
          pow: { $pow: [2, 40] },
          sqrt: { $sqrt: 16 },
          cond: { $cond: [new Double(0), 'yes', 'no'] },
          dates: { $subtract: [new Date(5000), new Date(1000)] },
          str: { $toString: '$d' },
          size: { $size: [[1, 2]] }
        }
      }
    ])
    .toArray()
  t.same(types(p), {
    div: 'Double(2)',
    addL: 'Long(11)',
    addD: 'Double(3)',
    mul: 'Long(4294967294)',
    mod: 'Long(1)',
    toL: 'Long(1)',
    toD: 'Double(1)',
    toI: 'Int32(2)',
    toDec: 'Decimal128(1)',
    round: 'Double(2)',
    floor: 'Double(2)',
    abs: 'Long(3)',
    pow: 'Long(1099511627776)',
    sqrt: 'Double(4)',
    dates: 'Long(4000)',
    size: 'Int32(2)'
  })
  t.equal(p.type, 'double')
  t.equal(p.cond, 'no', 'a double zero is false')
  t.equal(p.str, '2')
  t.same(
    (await h.db.collection('agg').find({ $expr: '$d' }).toArray()).length,
    2,
    '$expr: a double zero does not match'
  )
})

t.test('arithmetic errors as mongod reports them', async (t) => {
  const c = h.db.collection('agg')
  const run = async (e: Document): Promise<number | undefined> =>
    (await mongoError(async () => await c.aggregate([{ $project: { x: e } }]).toArray())).code
  t.equal(await run({ $divide: [1, 0] }), 2)
  t.equal(await run({ $mod: [1, new Double(0)] }), 16610)
  t.equal(await run({ $add: ['a', 1] }), 16554)
  t.equal(await run({ $sqrt: -1 }), 28714)
  t.equal(await run({ $toInt: 'x1' }), 241)
  t.equal(await run({ $toInt: 1e12 }), 241, 'overflow')
  t.same(
    await c
      .aggregate([
        { $limit: 1 },
        { $project: { _id: 0, x: { $convert: { input: 'x', to: 'int', onError: -1 } }, n: { $add: [1, null] } } }
      ])
      .toArray(),
    [{ x: -1, n: null }]
  )
})

t.test('stage and option numbers may come as doubles or longs', async (t) => {
  const c = h.db.collection('agg')
  t.equal((await c.aggregate([{ $skip: new Double(1) }, { $limit: Long.fromNumber(1) }]).toArray()).length, 1)
  t.same(
    Object.keys(
      (await c.aggregate([{ $project: { i: new Double(1), _id: Long.fromNumber(0) } }, { $limit: 1 }]).toArray())[0]
    ),
    ['i'],
    '$project flags'
  )
  t.equal(
    (await c.find({}, { sort: { i: new Double(-1) } as never, projection: { i: new Double(1) } }).toArray())[0].i,
    3
  )
})

t.test('array and bit query operators match numbers by value whatever their type', async (t) => {
  const c = h.db.collection('arrq')
  await c.insertMany([
    { _id: 1, v: Long.fromNumber(6), a: [new Double(1), Long.fromNumber(2)], s: ['ab', 'cd'] },
    { _id: 2, v: new Double(6), a: [1, 2] },
    { _id: 3, v: 6, a: [3] }
  ] as never)
  const ids = async (f: Document): Promise<unknown[]> => (await c.find(f).toArray()).map((d) => d._id)
  t.same(await ids({ v: { $bitsAllSet: [1, 2] } }), [1, 2, 3])
  t.same(await ids({ v: { $bitsAnySet: Long.fromNumber(2) } }), [1, 2, 3])
  t.same(await ids({ a: { $all: [1, 2] } }), [1, 2])
  t.same(await ids({ a: { $all: [Long.fromNumber(1)] } }), [1, 2])
  t.same(await ids({ a: { $all: [{ $elemMatch: { $gt: new Double(1.5) } }, 1] } }), [1, 2])
  t.same(await ids({ s: { $all: [/^c/, 'ab'] } }), [1])
  t.same(await ids({ a: { $all: [] } }), [], 'an empty $all matches nothing')
  t.same(await ids({ a: { $elemMatch: { $gte: new Double(2) } } }), [1, 2, 3])
  t.same(await ids({ a: [1, 2] }), [1, 2], 'whole-array equality by value')
  t.same(await ids({ a: { $size: new Double(2) } }), [1, 2])
})

t.test("$unwind's array index is a long; $lookup and $graphLookup join by value", async (t) => {
  await h.db.collection('parents').insertMany([
    { _id: 1, kids: [new Double(10), Long.fromNumber(11)] },
    { _id: 2, next: Long.fromNumber(1) }
  ] as never)
  await h.db.collection('kids').insertMany([
    { _id: 10, name: 'a' },
    { _id: 11, name: 'b' }
  ] as never)
  const [u] = await rdb
    .collection('parents')
    .aggregate([{ $match: { _id: 1 } }, { $unwind: { path: '$kids', includeArrayIndex: 'i' } }, { $skip: 1 }])
    .toArray()
  t.same(types(u), { _id: 'Int32(1)', kids: 'Long(11)', i: 'Long(1)' })
  const [l] = await h.db
    .collection('parents')
    .aggregate([
      { $match: { _id: 1 } },
      { $lookup: { from: 'kids', localField: 'kids', foreignField: '_id', as: 'k' } }
    ])
    .toArray()
  t.same(
    l.k.map((k: Document) => k.name),
    ['a', 'b']
  )
  const [g] = await h.db
    .collection('parents')
    .aggregate([
      { $match: { _id: 2 } },
      {
        $graphLookup: {
          from: 'parents',
          startWith: '$next',
          connectFromField: 'next',
          connectToField: '_id',
          as: 'chain'
        }
      }
    ])
    .toArray()
  t.same(
    g.chain.map((d: Document) => d._id),
    [1]
  )
  await h.db.collection('parents').insertOne({ _id: 3, next: new Double(2) } as never)
  const chain = async (extra: Document): Promise<string[]> => {
    const [r] = await rdb
      .collection('parents')
      .aggregate([
        { $match: { _id: 3 } },
        {
          $graphLookup: {
            from: 'parents',
            startWith: '$next',
            connectFromField: 'next',
            connectToField: '_id',
            as: 'chain',
            depthField: 'd',
            ...extra
          }
        }
      ])
      .toArray()
    return (r.chain as Document[]).map((d) => `${String(d._id)}@${types(d).d}`)
  }
  t.same(await chain({}), ['2@Long(0)', '1@Long(1)'], 'breadth first, depth as a long')
  t.same(await chain({ maxDepth: 0 }), ['2@Long(0)'])
  t.same(await chain({ restrictSearchWithMatch: { _id: { $ne: 1 } } }), ['2@Long(0)'])
})
