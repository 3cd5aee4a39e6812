import t from 'tap'
import type { Document } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

// svc's list index (tenant, createdAt, _id) and its keyset pages (CONTRACT "Lists: cursors and
// counts"): the page after a position is read from the index at that position, and a count with
// a bound after an unbounded field (`{ userId, _id }`) checks that bound on every key.
const h = await setup(t)
const coll = h.db.collection<any>('keyset')
const BASE = Date.UTC(2024, 0, 1)
// Pairs of records share a createdAt, so ties go by _id.
const all = Array.from({ length: 3000 }, (_, i) => ({
  _id: i,
  userId: `u${i % 3}`,
  createdAt: new Date(BASE + Math.floor(i / 6) * 1000)
}))
await coll.insertMany(all as never)
await coll.createIndex({ userId: 1, createdAt: -1, _id: -1 })
const SORT = { createdAt: -1, _id: -1 } as const
const u1 = all
  .filter((d) => d.userId === 'u1')
  .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b._id - a._id)

const keysExamined = async (filter: Document): Promise<number> => {
  const ex = await coll.find(filter).sort(SORT).limit(21).explain('executionStats')
  return ex.executionStats.totalKeysExamined as number
}

t.test('a count bounded on _id after the unbounded createdAt counts matches only', async (t) => {
  t.equal(await coll.countDocuments({ userId: 'u1', _id: 4 }), 1)
  t.equal(await coll.countDocuments({ userId: 'u2', _id: 4 }), 0, "another tenant's id counts nothing")
  t.equal(
    await coll.countDocuments({ userId: 'u1', _id: { $gte: 2900 } }),
    all.filter((d) => d.userId === 'u1' && d._id >= 2900).length
  )
  t.equal(await coll.countDocuments({ userId: 'u1' }), u1.length, 'a plain tenant count still counts the range')
})

t.test('a keyset page after a deep position reads about one page of keys', async (t) => {
  const at = u1[600]
  const after = {
    $and: [
      { createdAt: { $lte: at.createdAt } },
      { $or: [{ createdAt: { $lt: at.createdAt } }, { createdAt: at.createdAt, _id: { $lt: at._id } }] }
    ]
  }
  const page = await coll
    .find({ $and: [{ userId: 'u1' }, after] })
    .sort(SORT)
    .limit(21)
    .toArray()
  t.same(
    page.map((d) => d._id),
    u1.slice(601, 622).map((d) => d._id),
    'the 21 records after the position'
  )
  t.ok(
    (await keysExamined({ $and: [{ userId: 'u1' }, after] })) <= 23,
    'starts at the position: no walk over the 600 before it'
  )
  t.ok((await keysExamined({ userId: 'u1' })) <= 21, 'the first page reads its own keys')
})
