/**
 * Write commands as mongod 7.0 parses and stores them (found by the driver's unified CRUD spec
 * tests): unknown statement fields fail the command, `$`-prefixed field names are stored, and
 * `$merge`'s duplicate key names its key.
 */
import t from 'tap'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t)
const { db } = h
const coll = (name: string) => db.collection<SpecDoc>(name)

t.test('update and delete statements with a field mongod 7.0 does not know fail the command (40415)', async (t) => {
  const c = coll('stmt')
  await c.insertMany([
    { _id: 1, x: 1 },
    { _id: 2, x: 2 }
  ])
  const e1 = await mongoError(async () => await c.updateOne({}, { $inc: { x: 1 } }, { sort: { _id: -1 } }))
  t.equal(e1.code, 40415)
  t.equal(e1.message, "BSON field 'update.updates.sort' is an unknown field.")
  const e2 = await mongoError(async () => await c.replaceOne({}, { x: 0 }, { sort: { _id: -1 } } as never))
  t.equal(e2.code, 40415)
  const e3 = await mongoError(
    async () => await db.command({ delete: 'stmt', deletes: [{ q: {}, limit: 1, sort: { _id: 1 } }] })
  )
  t.equal(e3.code, 40415)
  t.equal(e3.message, "BSON field 'delete.deletes.sort' is an unknown field.")
  t.same(
    await c.find().toArray(),
    [
      { _id: 1, x: 1 },
      { _id: 2, x: 2 }
    ],
    'nothing was written'
  )
})

t.test('insert stores top-level $-prefixed field names (MongoDB 5.0+)', async (t) => {
  const c = coll('dollars')
  await c.insertOne({ _id: 1, $a: 1 })
  await c.insertMany([{ _id: 2, $b: { $c: 2 } }])
  t.same(await c.find().toArray(), [
    { _id: 1, $a: 1 },
    { _id: 2, $b: { $c: 2 } }
  ])
})

t.test("$merge whenMatched 'fail' answers the duplicate key with keyPattern and keyValue", async (t) => {
  await coll('mtarget').insertOne({ _id: 2, x: 0 })
  const e = await mongoError(
    async () =>
      await db
        .aggregate([{ $documents: [{ _id: 2, x: 1 }] }, { $merge: { into: 'mtarget', whenMatched: 'fail' } }])
        .toArray()
  )
  t.equal(e.code, 11000)
  t.same(e.keyPattern, { _id: 1 })
  t.same(e.keyValue, { _id: 2 })
})

t.test('documents over 16 MB are refused as mongod does: an insert (2), an update result (17419)', async (t) => {
  const c = coll('big')
  const e1 = await mongoError(async () => await c.insertOne({ _id: 1, s: 'x'.repeat(16 * 1024 * 1024) }))
  t.equal(e1.code, 2)
  t.match(e1.message, /^object to insert too large\. size in bytes: \d+, max size: 16777216$/)
  await c.insertOne({ _id: 2, a: 'x'.repeat(9 * 1024 * 1024) })
  const e2 = await mongoError(async () => await c.updateOne({ _id: 2 }, { $set: { b: 'y'.repeat(9 * 1024 * 1024) } }))
  t.equal(e2.code, 17419)
  t.equal(e2.message, 'Resulting document after update is larger than 16777216')
  t.same(await c.find({}, { projection: { _id: 1 } }).toArray(), [{ _id: 2 }], 'nothing written')
})
