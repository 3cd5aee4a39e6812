/**
 * `let` of find, aggregate, update, delete and findAndModify (and an update statement's `c`):
 * user variables evaluated as expressions, seen as `$$name` in filters, pipelines and projections
 * (found by the driver's unified CRUD spec tests: devdb answered "Use of undefined variable").
 */
import t from 'tap'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t)
const { db } = h
const coll = (name: string) => db.collection<SpecDoc>(name)

t.test('let: variables of find, aggregate, update, delete and findAndModify, evaluated as expressions', async (t) => {
  const c = coll('let')
  await c.insertMany([
    { _id: 1, x: 'a' },
    { _id: 2, x: 'b' },
    { _id: 3, x: 'c' }
  ])
  const byId = { $expr: { $eq: ['$_id', '$$id'] } }
  t.same(await c.find(byId, { let: { id: 2 } }).toArray(), [{ _id: 2, x: 'b' }])
  // let values are expressions: $literal keeps a '$' string, $add computes
  const agg = await c
    .aggregate([{ $match: byId }, { $project: { _id: 0, y: '$$y', z: '$$z' } }], {
      let: { id: 1, y: { $literal: '$bar' }, z: { $add: [1, 2] } }
    })
    .toArray()
  t.same(agg, [{ y: '$bar', z: 3 }])
  const u = await c.updateOne(byId, [{ $set: { x: '$$x' } }], { let: { id: 1, x: 'foo' } })
  t.equal(u.modifiedCount, 1)
  const um = await c.updateMany({ $expr: { $gt: ['$_id', '$$min'] } }, [{ $set: { big: true } }], { let: { min: 1 } })
  t.equal(um.modifiedCount, 2)
  const r = await c.replaceOne(byId, { x: 'replaced' }, { let: { id: 3 } })
  t.equal(r.modifiedCount, 1)
  t.same(await c.findOneAndUpdate(byId, [{ $set: { y: '$$y' } }], { let: { id: 1, y: 1 }, returnDocument: 'after' }), {
    _id: 1,
    x: 'foo',
    y: 1
  })
  t.same(await c.findOneAndReplace(byId, { x: 'r' }, { let: { id: 1 }, returnDocument: 'after' }), { _id: 1, x: 'r' })
  t.same(await c.findOneAndDelete(byId, { let: { id: 1 } }), { _id: 1, x: 'r' })
  const bw = await c.bulkWrite(
    [
      { updateOne: { filter: byId, update: [{ $set: { w: '$$w' } }] } },
      { deleteOne: { filter: { $expr: { $eq: ['$_id', 3] } } } }
    ],
    { let: { id: 2, w: 'bulk' } }
  )
  t.equal(bw.modifiedCount, 1)
  t.equal(bw.deletedCount, 1)
  const d = await c.deleteMany({ $expr: { $eq: ['$w', '$$w'] } }, { let: { w: 'bulk' } })
  t.equal(d.deletedCount, 1)
  t.equal(await c.countDocuments(), 0)
  // an update statement's own constants (c) join the command's let
  await c.insertOne({ _id: 9, v: 0 })
  const raw = await db.command({
    update: 'let',
    updates: [{ q: { $expr: { $eq: ['$_id', '$$id'] } }, u: [{ $set: { v: '$$v' } }], c: { v: 7 } }],
    let: { id: 9 }
  })
  t.equal(raw.nModified, 1)
  t.same(await c.findOne({ _id: 9 }), { _id: 9, v: 7 })
  // projections see them too
  t.same(await c.find({ _id: 9 }, { projection: { v: 1, w: { $add: ['$v', '$$k'] } }, let: { k: 10 } }).toArray(), [
    { _id: 9, v: 7, w: 17 }
  ])
  t.same(
    await c.findOneAndUpdate(
      { _id: 9 },
      { $set: { v: 8 } },
      { projection: { k: '$$k' }, let: { k: 'kept' }, returnDocument: 'after' }
    ),
    { _id: 9, k: 'kept' }
  )
  const bad = await mongoError(async () => await c.find({}, { let: { Upper: 1 } }).toArray())
  t.equal(bad.code, 16870)
  const notDoc = await mongoError(
    async () => await db.command({ delete: 'let', deletes: [{ q: {}, limit: 0 }], let: 5 })
  )
  t.equal(notDoc.code, 14)
})
