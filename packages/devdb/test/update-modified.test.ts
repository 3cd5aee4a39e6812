import t from 'tap'
import { Double, Int32, Long, ObjectId } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

// An update is "modified" when the document's BSON changed, as in mongod: the same value written
// again is not, another type of an equal number is. Most updates are decided from the fields
// they touch; the undecided ones compare the whole documents.

const h = await setup(t)
const when = new Date('2024-05-01T00:00:00Z')
const base = {
  s: 'a',
  n: 5,
  f: 1.5,
  b: true,
  d: when,
  nan: NaN,
  nested: { x: 1, y: [1, 2] },
  oid: new ObjectId('65f0000000000000000000e1'),
  nil: null
}

/** [name, update, modifiedCount, and for a type change (the driver reads both back as one JS number) the BSON type `n` has after] */
const cases: Array<[string, Record<string, unknown>, number, string?]> = [
  ['the same string', { $set: { s: 'a' } }, 0],
  ['another string', { $set: { s: 'b' } }, 1],
  ['the same number', { $set: { n: 5 } }, 0],
  ['another number', { $set: { n: 6 } }, 1],
  ['0 then -0 (another double)', { $set: { f: -0 } }, 1],
  ['the same boolean', { $set: { b: true } }, 0],
  ['another boolean', { $set: { b: false } }, 1],
  ['the same date', { $set: { d: new Date(when.getTime()) } }, 0],
  ['another date', { $set: { d: new Date(when.getTime() + 1) } }, 1],
  ['NaN again', { $set: { nan: NaN } }, 0],
  ['an equal number of another type (int32 → double)', { $set: { n: new Double(5) } }, 1, 'double'],
  ['an equal number as Int32', { $set: { n: new Int32(5) } }, 0],
  ['an equal number as a long', { $set: { n: Long.fromNumber(5) } }, 1, 'long'],
  ['the same nested document', { $set: { nested: { x: 1, y: [1, 2] } } }, 0],
  ['a nested field, the same', { $set: { 'nested.x': 1 } }, 0],
  ['a nested field, another', { $set: { 'nested.x': 2 } }, 1],
  ['an array element, the same', { $set: { 'nested.y.1': 2 } }, 0],
  ['the same ObjectId', { $set: { oid: new ObjectId('65f0000000000000000000e1') } }, 0],
  ['null again', { $set: { nil: null } }, 0],
  ['a new field', { $set: { added: 1 } }, 1],
  ['$unset of a missing field', { $unset: { missing: '' } }, 0],
  ['$unset of a present field', { $unset: { s: '' } }, 1],
  ['$inc by 0', { $inc: { n: 0 } }, 0],
  ['$inc by 1', { $inc: { n: 1 } }, 1],
  ['$max below', { $max: { n: 1 } }, 0],
  ['$rename', { $rename: { s: 'renamed' } }, 1],
  ['$setOnInsert on an existing document', { $setOnInsert: { s: 'other' } }, 0],
  ['$addToSet of a present element', { $addToSet: { 'nested.y': 2 } }, 0],
  ['$push', { $push: { 'nested.y': 3 } }, 1]
]

for (const [name, update, expected, type] of cases) {
  t.test(name, async (t) => {
    const c = h.db.collection('modified')
    await c.deleteMany({})
    const { insertedId } = await c.insertOne({ ...base })
    const before = await c.findOne({ _id: insertedId })
    const r = await c.updateOne({ _id: insertedId }, update)
    t.equal(r.matchedCount, 1)
    t.equal(r.modifiedCount, expected, 'modifiedCount')
    const after = await c.findOne({ _id: insertedId })
    if (type !== undefined) {
      t.equal(await c.countDocuments({ _id: insertedId, n: { $type: type } }), 1, `n is a ${type} now`)
    } else if (expected === 0) t.same(after, before, 'the document as it was')
    else t.notSame(after, before, 'the document changed')
  })
}

t.test('an unmodified update leaves no change event, a modified one does', async (t) => {
  const c = h.db.collection('modified_stream')
  const { insertedId } = await c.insertOne({ ...base })
  const stream = c.watch()
  await stream.tryNext() // opened
  await c.updateOne({ _id: insertedId }, { $set: { s: 'a', n: 5 } })
  await c.updateOne({ _id: insertedId }, { $set: { s: 'z' } })
  const change = await stream.next()
  await stream.close()
  t.match(change, { operationType: 'update', updateDescription: { updatedFields: { s: 'z' } } })
})
