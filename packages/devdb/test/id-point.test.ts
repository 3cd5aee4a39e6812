import t from 'tap'
import { Double, Long, ObjectId, type Document } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

// A filter with a top-level `_id` equal to one plain value reads that one key of the `_id` index
// (mongod's IDHACK, widened to further predicates): no other index is tried, and the other
// predicates still decide on the fetched document.
const h = await setup(t)
const coll = h.db.collection<any>('id_point')
const oid = new ObjectId()
await coll.insertMany([
  { _id: 1, kind: 'num', pending: 1 },
  { _id: 'Abc', kind: 'str' },
  { _id: oid, kind: 'oid', pending: 2 },
  ...Array.from({ length: 500 }, (_, i) => ({ _id: `k${i}`, kind: 'bulk', pending: i }))
] as never)
await coll.createIndex({ pending: 1 }, { partialFilterExpression: { pending: { $exists: true } } })
await coll.createIndex({ kind: 1 })

const keysExamined = async (run: () => Promise<unknown>): Promise<number> => {
  const scanned = async (): Promise<number> =>
    Number((await h.db.admin().command({ serverStatus: 1 })).metrics.queryExecutor.scanned)
  const before = await scanned()
  await run()
  return (await scanned()) - before
}
const ids = async (filter: Document, opts: Document = {}): Promise<unknown[]> =>
  (await coll.find(filter, opts).toArray()).map((d) => d._id)

t.test('the lookup reads one key, also where another index could serve a predicate', async (t) => {
  // Planned, the index on kind would compete in a trial run (reading its keys of 'bulk' too).
  t.equal(await keysExamined(async () => await coll.find({ _id: 'k8', kind: 'bulk' }).toArray()), 1)
  t.equal(await keysExamined(async () => await coll.findOne({ _id: 'k7', pending: { $exists: true } })), 1)
  t.equal(
    await keysExamined(async () => await coll.updateOne({ _id: 'k9', kind: 'bulk' }, { $set: { seq: 9 } })),
    1,
    'updates select the same way'
  )
})

t.test('the other predicates still decide', async (t) => {
  t.same(await ids({ _id: 'k7', kind: 'bulk' }), ['k7'])
  t.same(await ids({ _id: 'k7', kind: 'num' }), [], 'a predicate the document fails')
  t.same(await ids({ _id: 'Abc', pending: { $exists: true } }), [], 'a field it lacks')
  t.same(await ids({ _id: 'k7', $or: [{ kind: 'x' }, { pending: 7 }] }), ['k7'])
  t.same(await ids({ _id: 'nope' }), [], 'no such id')
})

t.test('values compare as mongod compares them', async (t) => {
  t.same(await ids({ _id: new Double(1) }), [1], 'a double equals the int')
  t.same(await ids({ _id: Long.fromNumber(1) }), [1], 'a long equals the int')
  t.same(await ids({ _id: new ObjectId(oid.toHexString()) }), [oid])
  t.same(await ids({ _id: 'abc' }), [], 'strings by binary comparison')
  t.same(
    await ids({ _id: 'abc' }, { collation: { locale: 'en', strength: 2 } }),
    ['Abc'],
    'another collation than the index has: the planner decides, and its comparison holds'
  )
  t.same(await ids({ _id: /^Ab/ }), ['Abc'], 'a regex is a match, not a point')
  t.same(await ids({ _id: { $in: [1, 'Abc'] } }, { sort: { _id: 1 } }), [1, 'Abc'], 'an operator is not a point')
})

t.test('sort, skip, limit and projection still apply', async (t) => {
  t.same(await ids({ _id: 'k7' }, { skip: 1 }), [])
  t.same(await ids({ _id: 'k7' }, { sort: { kind: -1 }, limit: 1 }), ['k7'])
  t.same(await coll.findOne({ _id: 'k7' }, { projection: { kind: 1 } }), { _id: 'k7', kind: 'bulk' })
})

t.test('explain still shows every candidate plan', async (t) => {
  const ex = await coll.find({ _id: 'k7', kind: 'bulk' }).explain('queryPlanner')
  t.equal(ex.queryPlanner.winningPlan.inputStage.indexName, '_id_')
  t.same(
    ex.queryPlanner.rejectedPlans.map((p: Document) => p.inputStage.indexName),
    ['kind_1'],
    'the index on kind was considered'
  )
})
