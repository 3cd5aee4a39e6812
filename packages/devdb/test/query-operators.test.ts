import t from 'tap'
import { Decimal128, Long, ObjectId } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'
import { compileFilter, mingoOptions, sharedMingoOptions } from '../src/query/options.js'

const h = await setup(t)
const c = h.db.collection('q')
const oid1 = new ObjectId('64b000000000000000000001')
const oid2 = new ObjectId('64b000000000000000000002')
await c.insertMany([
  { _id: 1 as never, n: 1, s: 'apple', tags: ['red', 'fruit'], o: { x: 1, y: [1, 2] }, ref: oid1 },
  { _id: 2 as never, n: 2.5, s: 'Banana', tags: ['yellow', 'fruit'], o: { x: 2 }, ref: oid2 },
  { _id: 3 as never, n: Long.fromNumber(3), s: 'cherry', tags: [], o: { x: 3, y: 5 } },
  {
    _id: 4 as never,
    n: Decimal128.fromString('4'),
    s: 'date',
    arr: [
      { a: 1, b: 2 },
      { a: 3, b: 4 }
    ]
  },
  { _id: 5 as never, n: null, s: 5 },
  { _id: 6 as never, s: 'fig', n: '10' }
])
const ids = async (filter: object): Promise<unknown[]> =>
  (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id)

t.test('comparison across numeric types', async (t) => {
  t.same(await ids({ n: 1 }), [1])
  t.same(await ids({ n: 3 }), [3], 'Long 3 equals 3')
  t.same(await ids({ n: 4 }), [4], 'Decimal 4 equals 4')
  t.same(await ids({ n: Long.fromNumber(4) }), [4])
  t.same(await ids({ n: { $gt: 2 } }), [2, 3, 4], 'type bracketing: string "10" not included')
  t.same(await ids({ n: { $lte: 2.5 } }), [1, 2])
  t.same(await ids({ n: { $gte: '1' } }), [6])
  t.same(await ids({ n: { $in: [1, Decimal128.fromString('3')] } }), [1, 3])
  t.same(await ids({ n: { $nin: [1, 2.5] } }), [3, 4, 5, 6])
  t.same(await ids({ n: { $ne: null } }), [1, 2, 3, 4, 6])
})

t.test('null and missing', async (t) => {
  t.same(await ids({ n: null }), [5])
  t.same(await ids({ missing: null }), [1, 2, 3, 4, 5, 6])
  t.same(await ids({ n: { $exists: false } }), [])
  t.same(await ids({ arr: { $exists: true } }), [4])
  t.same(await ids({ n: { $gt: null } }), [])
  t.same(await ids({ n: { $gte: null } }), [5])
})

t.test('ObjectId equality and order', async (t) => {
  t.same(await ids({ ref: new ObjectId('64b000000000000000000002') }), [2])
  t.same(await ids({ ref: { $gt: oid1 } }), [2])
  t.same(await ids({ ref: { $in: [oid1, oid2] } }), [1, 2])
})

t.test('arrays', async (t) => {
  t.same(await ids({ tags: 'fruit' }), [1, 2])
  t.same(await ids({ tags: ['red', 'fruit'] }), [1])
  t.same(await ids({ tags: { $all: ['fruit', 'yellow'] } }), [2])
  t.same(await ids({ tags: { $size: 0 } }), [3])
  t.same(await ids({ tags: { $size: 2 } }), [1, 2])
  t.same(await ids({ arr: { $elemMatch: { a: 3, b: 4 } } }), [4])
  t.same(await ids({ arr: { $elemMatch: { a: 1, b: 4 } } }), [])
  t.same(await ids({ 'arr.a': 3 }), [4])
  t.same(await ids({ 'arr.1.b': 4 }), [4])
  t.same(await ids({ 'o.y': 2 }), [1])
  t.same(await ids({ 'o.y': { $gt: 4 } }), [3])
})

t.test('logical', async (t) => {
  t.same(await ids({ $or: [{ n: 1 }, { s: 'fig' }] }), [1, 6])
  t.same(await ids({ $and: [{ n: { $gt: 1 } }, { n: { $lt: 4 } }] }), [2, 3])
  t.same(await ids({ $nor: [{ n: { $exists: true } }] }), [])
  t.same(await ids({ n: { $not: { $gt: 2 } } }), [1, 5, 6])
})

t.test('regex', async (t) => {
  t.same(await ids({ s: /^b/i }), [2])
  t.same(await ids({ s: { $regex: '^B' } }), [2])
  t.same(await ids({ s: { $regex: 'an', $options: 'i' } }), [2])
  t.same(await ids({ s: { $in: [/^ch/, 'fig'] } }), [3, 6])
  t.same(await ids({ s: { $not: /a/ } }), [3, 5, 6])
})

t.test('$type, $mod, $expr', async (t) => {
  t.same(await ids({ s: { $type: 'string' } }), [1, 2, 3, 4, 6])
  t.same(await ids({ n: { $type: 'double' } }), [2])
  t.same(await ids({ _id: { $type: 'int' } }), [1, 2, 3, 4, 5, 6])
  t.same(await ids({ n: { $type: 'decimal' } }), [4])
  t.same(await ids({ n: { $type: 'number' } }), [1, 2, 3, 4])
  t.same(await ids({ tags: { $type: 'array' } }), [1, 2, 3])
  t.same(await ids({ _id: { $mod: [2, 0] } }), [2, 4, 6])
  t.same(await ids({ $expr: { $gt: ['$o.x', 1] } }), [2, 3])
})

t.test('unknown operators are refused', async (t) => {
  const e1 = await mongoError(async () => await c.find({ n: { $foo: 1 } }).toArray())
  t.equal(e1.code, 2)
  t.equal(e1.message, 'unknown operator: $foo')
  const e2 = await mongoError(async () => await c.find({ $foo: 1 }).toArray())
  t.equal(e2.code, 2)
  t.match(e2.message, /unknown top level operator: \$foo/)
  const e3 = await mongoError(async () => await c.find({ $or: [] }).toArray())
  t.equal(e3.code, 2)
  const e4 = await mongoError(async () => await c.find({ n: { $in: 5 } }).toArray())
  t.equal(e4.code, 2)
  t.equal(e4.message, '$in needs an array')
  const e5 = await mongoError(async () => await c.find({ $where: 'true' }).toArray())
  t.equal(e5.code, 2)
})

t.test('regex options including x, and $comment', async (t) => {
  const r = h.db.collection('rx')
  await r.insertMany([
    { _id: 1, s: 'Hello\nworld' },
    { _id: 2, s: 'hello' }
  ] as never)
  const rids = async (f: object): Promise<unknown[]> => (await r.find(f).sort({ _id: 1 }).toArray()).map((d) => d._id)
  t.same(await rids({ s: { $regex: '^world', $options: 'm' } }), [1])
  t.same(await rids({ s: { $regex: 'h e l l o  # comment', $options: 'x' } }), [2])
  t.same(await rids({ s: { $regex: 'o.w', $options: 's' } }), [1])
  t.same(await rids({ s: /^hello$/, $comment: 'why' }), [2])
  const e = await mongoError(async () => await r.find({ s: { $regex: 'a', $options: 'z' } }).toArray())
  t.equal(e.code, 51108)
})

t.test('let variables in find and aggregate', async (t) => {
  const r = await h.db.command({ find: 'q', filter: { $expr: { $eq: ['$s', '$$want'] } }, let: { want: 'fig' } })
  t.same(
    r.cursor.firstBatch.map((d: { _id: number }) => d._id),
    [6]
  )
  const a = await c
    .aggregate([{ $match: { $expr: { $eq: ['$_id', '$$id'] } } }, { $project: { v: '$$id' } }], { let: { id: 2 } })
    .toArray()
  t.same(a, [{ _id: 2, v: 2 }])
})

t.test("mingo gets its own options class: queries share devdb's operator context, not a copy each", async (t) => {
  const options = sharedMingoOptions({ variables: { v: 3 } })
  t.not(Object.getPrototypeOf(options), Object.prototype, 'an instance of mingo’s ComputeOptions')
  t.equal(Object.getPrototypeOf(mingoOptions()), Object.prototype, 'plain settings where mingo spreads or extends them')
  t.equal(options.variables?.v, 3, 'the extra settings are read through it')
  t.ok(compileFilter({ $expr: { $eq: ['$a', '$$v'] } }, { variables: { v: 3 } })({ a: 3 }), 'variables reach $expr')
  t.notOk(compileFilter({ $expr: { $eq: ['$a', '$$v'] } }, { variables: { v: 3 } })({ a: 4 }))
})
