import t from 'tap'
import { Decimal128, Timestamp } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
let n = 0
/** Inserts `doc`, applies `update`, returns the stored result without _id. */
async function after (doc: object, update: object, opts: object = {}): Promise<Record<string, unknown>> {
  const c = h.db.collection('u' + String(n++))
  await c.insertOne({ _id: 1 as never, ...doc })
  await c.updateOne({ _id: 1 as never }, update as never, opts)
  const { _id, ...rest } = (await c.findOne({ _id: 1 as never })) ?? {}
  return rest
}

t.test('field operators', async (t) => {
  t.same(await after({ a: 1 }, { $set: { 'b.c': 2 } }), { a: 1, b: { c: 2 } })
  t.same(await after({ a: 1, b: 2 }, { $unset: { a: '' } }), { b: 2 })
  t.same(await after({ a: 1 }, { $inc: { a: 2, z: -1 } }), { a: 3, z: -1 })
  t.same(await after({ a: 3 }, { $mul: { a: 2, z: 5 } }), { a: 6, z: 0 })
  t.same(await after({ a: 5, b: 5 }, { $min: { a: 2, b: 9 }, $max: { c: 1 } }), { a: 2, b: 5, c: 1 })
  t.same(await after({ a: { b: 1 }, c: 2 }, { $rename: { 'a.b': 'x', c: 'y' } }), { a: {}, x: 1, y: 2 })
  const d = await after({}, { $currentDate: { d: true, ts: { $type: 'timestamp' } } })
  t.ok(d.d instanceof Date)
  t.ok(d.ts instanceof Timestamp)
})

t.test('array operators', async (t) => {
  t.same(await after({ a: [1] }, { $push: { a: 2 } }), { a: [1, 2] })
  t.same(await after({}, { $push: { a: 2 } }), { a: [2] })
  t.same(await after({ a: [5, 1] }, { $push: { a: { $each: [3, 9], $sort: 1, $slice: 3 } } }), { a: [1, 3, 5] })
  t.same(await after({ a: [1, 2] }, { $push: { a: { $each: [0], $position: 0 } } }), { a: [0, 1, 2] })
  t.same(await after({ a: [{ s: 2 }, { s: 1 }] }, { $push: { a: { $each: [], $sort: { s: 1 } } } }), {
    a: [{ s: 1 }, { s: 2 }]
  })
  t.same(await after({ a: [1, 2] }, { $addToSet: { a: { $each: [2, 3, 3] } } }), { a: [1, 2, 3] })
  t.same(await after({ a: [1, 2, 3] }, { $pop: { a: 1 } }), { a: [1, 2] })
  t.same(await after({ a: [1, 2, 3] }, { $pop: { a: -1 } }), { a: [2, 3] })
  t.same(await after({ a: [1, 2, 3, 2] }, { $pull: { a: 2 } }), { a: [1, 3] })
  t.same(await after({ a: [1, 5, 7] }, { $pull: { a: { $gte: 5 } } }), { a: [1] })
  t.same(await after({ a: [{ x: 1 }, { x: 2 }] }, { $pull: { a: { x: 2 } } }), { a: [{ x: 1 }] })
  t.same(await after({ a: [1, 2, 3] }, { $pullAll: { a: [1, 3] } }), { a: [2] })
})

t.test('positional updates', async (t) => {
  const c = h.db.collection('pos')
  await c.insertOne({
    _id: 1 as never,
    grades: [80, 85, 90],
    items: [
      { k: 'a', q: 1 },
      { k: 'b', q: 2 }
    ]
  })
  await c.updateOne({ _id: 1 as never, grades: 85 }, { $set: { 'grades.$': 86 } })
  await c.updateOne({ _id: 1 as never, 'items.k': 'b' }, { $inc: { 'items.$.q': 10 } })
  await c.updateOne({ _id: 1 as never }, { $inc: { 'grades.$[]': 1 } })
  await c.updateOne(
    { _id: 1 as never },
    { $set: { 'items.$[it].flag': true } },
    { arrayFilters: [{ 'it.q': { $gt: 5 } }] }
  )
  t.same(await c.findOne({ _id: 1 as never }), {
    _id: 1,
    grades: [81, 87, 91],
    items: [
      { k: 'a', q: 1 },
      { k: 'b', q: 12, flag: true }
    ]
  })
})

t.test('replacement and pipeline updates', async (t) => {
  const c = h.db.collection('rep')
  await c.insertOne({ _id: 1 as never, a: 1, b: 2 })
  const r = await c.replaceOne({ _id: 1 as never }, { z: 9 })
  t.equal(r.modifiedCount, 1)
  t.same(await c.findOne({ _id: 1 as never }), { _id: 1, z: 9 })
  await c.updateOne({ _id: 1 as never }, [{ $set: { y: { $add: ['$z', 1] } } }, { $unset: 'z' }])
  t.same(await c.findOne({ _id: 1 as never }), { _id: 1, y: 10 })
})

t.test('matched and modified counts', async (t) => {
  const c = h.db.collection('counts')
  await c.insertMany([
    { g: 1, v: 1 },
    { g: 1, v: 2 },
    { g: 1, v: 1 }
  ])
  const r = await c.updateMany({ g: 1 }, { $set: { v: 1 } })
  t.equal(r.matchedCount, 3)
  t.equal(r.modifiedCount, 1)
  const none = await c.updateMany({ g: 2 }, { $set: { v: 1 } })
  t.equal(none.matchedCount, 0)
  t.equal(none.modifiedCount, 0)
  t.equal(none.upsertedId, null)
})

t.test('update errors', async (t) => {
  const c = h.db.collection('errs')
  await c.insertOne({ _id: 1 as never, s: 'x', n: 1, arr: [1] })
  const e1 = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { _id: 2 } }))
  t.equal(e1.code, 66)
  t.equal(e1.message, "Performing an update on the path '_id' would modify the immutable field '_id'")
  const e2 = await mongoError(async () => await c.updateOne({}, { $set: { n: 1 }, $inc: { n: 1 } }))
  t.equal(e2.code, 40)
  t.equal(e2.message, "Updating the path 'n' would create a conflict at 'n'")
  const e3 = await mongoError(async () => await c.updateOne({}, { $foo: { n: 1 } } as never))
  t.equal(e3.code, 9)
  t.match(e3.message, /^Unknown modifier: \$foo/)
  const e4 = await mongoError(async () => await c.updateOne({}, { $inc: { s: 1 } }))
  t.equal(e4.code, 14)
  t.equal(
    e4.message,
    "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 's' of non-numeric type string"
  )
  const e5 = await mongoError(async () => await c.updateOne({}, { $push: { n: 1 } } as never))
  t.equal(e5.code, 2)
  const e6 = await mongoError(async () => await c.updateOne({}, { $set: { 'n.x': 1 } }))
  t.equal(e6.code, 28)
  const e7 = await mongoError(async () => await c.updateOne({}, { $inc: { n: 'a' } } as never))
  t.equal(e7.code, 14)
  const e8 = await mongoError(async () => await c.updateOne({}, { $set: 5 } as never))
  t.equal(e8.code, 9)
  const e9 = await mongoError(async () => await c.replaceOne({}, { _id: 3, x: 1 } as never))
  t.equal(e9.code, 66)
  t.same(await c.findOne({ _id: 1 as never }), { _id: 1, s: 'x', n: 1, arr: [1] }, 'failed updates change nothing')
})

t.test('array update errors and field-order-sensitive $set', async (t) => {
  const c = h.db.collection('arrerrs')
  await c.insertOne({ _id: 1 as never, a: [1, 2], s: 1, o: { b: 1, c: 2 } })
  const e1 = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { 'a.$[x]': 0 } }))
  t.equal(e1.code, 2)
  t.equal(e1.message, "No array filter found for identifier 'x' in path 'a.$[x]'")
  const e2 = await mongoError(
    async () =>
      await c.updateOne({ _id: 1 as never }, { $set: { 'a.$[x]': 0 } }, { arrayFilters: [{ x: 1 }, { y: 2 }] })
  )
  t.equal(e2.code, 9)
  t.match(e2.message, /The array filter for identifier 'y' was not used in the update/)
  const e3 = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { 's.$[]': 0 } }))
  t.equal(e3.code, 2)
  t.equal(e3.message, 'Cannot apply array updates to non-array element s: 1')
  const e4 = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { 'a.$': 0 } }))
  t.equal(e4.code, 2)
  t.equal(e4.message, 'The positional operator did not find the match needed from the query.')
  const r = await c.updateOne({ _id: 1 as never }, { $set: { o: { c: 2, b: 1 } } })
  t.equal(r.modifiedCount, 1, 'field order is part of a document value')
  t.same(Object.keys((await c.findOne({ _id: 1 as never }))?.o ?? {}), ['c', 'b'])
})

t.test('arithmetic on Decimal128 is exact decimal arithmetic', async (t) => {
  const c = h.db.collection('dec')
  await c.insertOne({
    _id: 1 as never,
    d: Decimal128.fromString('1.10'),
    big: Decimal128.fromString('12345678901234567890.123')
  })
  await c.updateOne(
    { _id: 1 as never },
    {
      $inc: { d: 1, big: Decimal128.fromString('0.001'), n: Decimal128.fromString('2') },
      $mul: { m: Decimal128.fromString('3') }
    }
  )
  const got = await c.findOne({ _id: 1 as never })
  t.equal(String(got?.d), '2.10', 'the ideal exponent of decimal addition')
  t.equal(String(got?.big), '12345678901234567890.124', 'no binary rounding')
  t.equal(String(got?.n), '2')
  t.equal(String(got?.m), '0', "$mul of a missing field: a zero of the multiplier's type")
  t.ok(got?.m instanceof Decimal128)
})

t.test('$set of _id to its own value is a no-op; $rename refuses array elements', async (t) => {
  const c = h.db.collection('idsame')
  await c.insertOne({ _id: 1 as never, a: [1, 2], s: 1 })
  const r = await c.updateOne({ _id: 1 as never }, { $set: { _id: 1, s: 1 } } as never)
  t.equal(r.matchedCount, 1)
  t.equal(r.modifiedCount, 0)
  const e = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $rename: { 'a.0': 'b' } }))
  t.equal(e.code, 2)
  t.equal(
    e.message,
    "The source field cannot be an array element, 'a.0' in doc with _id: 1 has an array field called 'a'"
  )
  const up = await c.updateOne({ k: 'new' }, { $set: { _id: 'chosen' } } as never, { upsert: true })
  t.equal(up.upsertedId, 'chosen')
})

t.test('several positional paths into one array in one update (mongoose timestamps on subdocuments)', async (t) => {
  const c = h.db.collection('pos2')
  await c.insertOne({ _id: 1 as never, children: [{ name: 'a' }, { name: 'b' }] })
  await c.updateOne({ 'children.name': 'b' }, { $set: { 'children.$.name': 'B', 'children.$.at': 1 } })
  await c.updateOne(
    { _id: 1 as never },
    { $set: { 'children.$[x].seen': true, 'children.$[x].by': 'me' } },
    { arrayFilters: [{ 'x.name': 'a' }] }
  )
  await c.updateOne({ _id: 1 as never }, { $inc: { 'children.$[].n': 1 }, $set: { 'children.$[].ok': 1 } })
  t.same(await c.findOne({ _id: 1 as never }), {
    _id: 1,
    children: [
      { name: 'a', seen: true, by: 'me', n: 1, ok: 1 },
      { name: 'B', at: 1, n: 1, ok: 1 }
    ]
  })
  const e = await mongoError(
    async () => await c.updateOne({ 'children.name': 'B' }, { $set: { 'children.$': {}, 'children.$.x': 1 } })
  )
  t.equal(e.code, 40, 'a real conflict is still refused')
})

t.test('$pull conditions as mongod matches them', async (t) => {
  t.same(
    await after({ a: [{ x: 1 }, { x: 2 }, { x: 3 }] }, { $pull: { a: { $or: [{ x: 1 }, { x: 3 }] } } }),
    { a: [{ x: 2 }] },
    'a query on each element document'
  )
  t.same(await after({ a: [{ x: 1, y: 1 }, { x: 1 }, 5] }, { $pull: { a: { x: 1, y: 1 } } }), { a: [{ x: 1 }, 5] })
  t.same(await after({ a: [{ x: 1 }, 5, 'k'] }, { $pull: { a: {} } }), { a: [5, 'k'] }, '{} removes every document')
  t.same(
    await after({ a: [1, 6, 7, 2] }, { $pull: { a: { $gte: 6 } } }),
    { a: [1, 2] },
    'an operator condition applies to the element'
  )
  t.same(await after({ a: ['apple', 'kiwi', 'avocado'] }, { $pull: { a: /^a/ } }), { a: ['kiwi'] })
  t.same(await after({ a: [1, 2.0, 3] }, { $pull: { a: 2 } }), { a: [1, 3] }, 'equality across number types')
  t.same(await after({ a: [[1, 2], [3]] }, { $pull: { a: [1, 2] } }), { a: [[3]] })
  t.same(
    await after({ a: ['A', 'a', 'b'] }, { $pull: { a: 'a' } }, { collation: { locale: 'en', strength: 2 } }),
    { a: ['b'] },
    'under the collation'
  )
  t.same(await after({ a: [{ b: [1, 2] }, { b: [3] }] }, { $pull: { a: { b: { $elemMatch: { $gt: 2 } } } } }), {
    a: [{ b: [1, 2] }]
  })
})

t.test('$-prefixed field names in update paths (MongoDB 5.0+)', async (t) => {
  t.same(await after({ p: { a: 1 } }, { $set: { 'p.$each': 42 } }), { p: { a: 1, $each: 42 } }, 'nested: written')
  t.same(await after({ a: [{ b: 1 }] }, { $set: { 'a.$[].$c': 2 } }), { a: [{ b: 1, $c: 2 }] })
  const c = h.db.collection('dollarUpsert')
  const r = await c.updateOne({ _id: 1 as never }, { $set: { $myKey: 'k' }, $setOnInsert: { v: 0 } }, { upsert: true })
  t.equal(r.upsertedCount, 1)
  t.same(
    await c.findOne({ _id: 1 as never }),
    { _id: 1, $myKey: 'k', v: 0 },
    'an upsert inserts a top-level $-prefixed field'
  )
  const e = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { $myKey: 'again' } }))
  t.equal(e.code, 52, 'an existing document cannot get one')
  t.equal(e.message, "The dollar ($) prefixed field '$myKey' in '$myKey' is not valid for storage.")
  t.equal((await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $inc: { $n: 1 } }))).code, 52)
})

t.test('an operator that creates its field through an array by name is PathNotViable (28)', async (t) => {
  const c = h.db.collection('pnv')
  await c.insertOne({ _id: 1 as never, comments: [{ body: 'a' }, { body: 'b' }], nums: [1, 2] })
  const e = await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $set: { 'comments.body': 'fail' } }))
  t.equal(e.code, 28)
  t.equal(e.message, 'Cannot create field \'body\' in element {comments: [ { body: "a" }, { body: "b" } ]}')
  t.equal((await mongoError(async () => await c.updateOne({ _id: 1 as never }, { $inc: { 'nums.x': 1 } }))).code, 28)
  const u = await c.updateOne({ _id: 1 as never }, { $unset: { 'comments.body': 1 } })
  t.equal(u.modifiedCount, 0, '$unset of such a path does nothing, as in mongod')
  t.same(await after({ a: [{ b: 1 }] }, { $set: { 'a.0.b': 2 } }), { a: [{ b: 2 }] }, 'by index it is a path')
})

t.test('$set and $unset through documents, and through arrays', async (t) => {
  // Paths through documents only (applied without mingo): new fields come last, in the order given.
  const plain = await after(
    { a: 1, b: { c: 1, k: 0 } },
    { $set: { z: 1, 'b.d.e': 2, a: 3 }, $unset: { 'b.c': '', 'q.r': '' } }
  )
  t.same(plain, { a: 3, b: { k: 0, d: { e: 2 } }, z: 1 })
  t.same(Object.keys(plain), ['a', 'b', 'z'])
  t.same(Object.keys(plain.b as object), ['k', 'd'])
  // Through an array (mingo): elements by index, padded with null.
  t.same(await after({ a: [{ x: 1 }, { x: 2 }] }, { $set: { 'a.1.x': 5, 'a.3.y': 1 } }), {
    a: [{ x: 1 }, { x: 5 }, null, { y: 1 }]
  })
  t.same(await after({ a: [{ x: 1 }] }, { $unset: { 'a.0.x': '' } }), { a: [{}] })
  // A scalar on the way is refused as before.
  const err = await mongoError(async () => await after({ a: 1 }, { $set: { 'a.b': 1 } }))
  t.equal(err.code, 28)
})

t.test('a field named __proto__ is stored like any other (mongod keeps it)', async (t) => {
  const c = h.db.collection('proto')
  await c.insertOne({ _id: 1 as never })
  await c.updateOne({ _id: 1 as never }, { $set: JSON.parse('{ "p": { "__proto__": "abcd", "x": 1 } }') })
  const doc = await c.findOne({ _id: 1 as never })
  t.ok(Object.prototype.hasOwnProperty.call(doc?.p, '__proto__'))
  t.equal(Object.getOwnPropertyDescriptor(doc?.p, '__proto__')?.value, 'abcd')
  t.same(Object.keys(doc?.p ?? {}), ['__proto__', 'x'])
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was touched')
})

t.test('a pipeline updateMany: each document computed from its own fields and the let variables', async (t) => {
  const c = h.db.collection<any>('u_pipeline_many')
  const ids = Array.from({ length: 40 }, (_, i) => `e${i}`)
  await c.insertMany(ids.map((_id, i) => ({ _id, n: i, pending: true })))
  const shuffled = [...ids].reverse()
  const res = await c.updateMany(
    { _id: { $in: ids }, pending: { $exists: true } },
    [
      {
        $set: {
          seq: { $add: ['$$from', { $indexOfArray: [{ $literal: shuffled }, '$_id'] }] },
          twice: { $multiply: ['$n', 2] }
        }
      },
      { $unset: 'pending' }
    ],
    { let: { from: 101 } }
  )
  t.equal(res.modifiedCount, 40)
  const docs = await c.find({}, { sort: { n: 1 } }).toArray()
  t.same(
    docs.map((d) => [d.seq, d.twice, 'pending' in d]),
    ids.map((_, i) => [101 + 39 - i, 2 * i, false]),
    'each document got its own values'
  )
  const second = await c.updateMany({}, [{ $set: { seq: { $add: ['$$from', '$n'] } } }], { let: { from: 1000 } })
  t.equal(second.modifiedCount, 40, 'another statement with other variables')
  t.same((await c.findOne({ _id: 'e3' }))?.seq, 1003)
})

t.test('$$NOW is one value for a whole pipeline updateMany, as mongod evaluates it per statement', async (t) => {
  const c = h.db.collection('now_per_statement')
  await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i as never, payload: 'x'.repeat(2000) })))
  const before = Date.now()
  await c.updateMany({}, [{ $set: { at: '$$NOW' } }])
  const stamps = new Set((await c.find().toArray()).map((d) => (d.at as Date).getTime()))
  t.equal(stamps.size, 1, `every document got the same time (${stamps.size} distinct)`)
  const [at] = [...stamps]
  t.ok(at >= before - 1000 && at <= Date.now(), 'the time of the statement')
})
