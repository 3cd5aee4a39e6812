import t from 'tap'
import { Collection } from '../src/engine/collection.js'
import { buildIndex } from '../src/engine/index-build.js'
import { select } from '../src/engine/select.js'

// Collection.snapshot() is the engine API transactions build on (no wire command exposes it).
t.test('a snapshot is an independent, queryable copy in both directions', async (t) => {
  const live = new Collection('db', 'c')
  live.addIndex(buildIndex({ key: { k: 1 }, name: 'k_1', unique: true }))
  for (let i = 0; i < 1000; i++) live.insert({ _id: i, k: `k${i}`, v: i % 10 })
  const snap = live.snapshot()
  live.insert({ _id: 1000, k: 'new', v: 1 })
  live.replace(live.getById(5) as never, { _id: 5, k: 'k5', v: 99 })
  live.remove(live.getById(6) as never)
  t.equal(snap.size, 1000, 'later inserts and deletes do not reach the snapshot')
  t.equal(snap.getById(5)?.v, 5, 'nor do replacements')
  t.equal(snap.getById(6)?._id, 6)
  t.same(select(snap, { k: 'new' }, {}, undefined, undefined).docs, [], "the snapshot's indexes are frozen too")
  t.same(
    select(snap, { v: 5 }, { sort: [{ path: 'k', dir: -1 }], limit: 2 }, undefined, undefined).docs.map((d) => d._id),
    [995, 985]
  )
  snap.insert({ _id: 2000, k: 'private', v: 0 })
  t.equal(live.getById(2000), undefined, "a snapshot's own writes stay private")
  t.same(select(live, { k: 'private' }, {}, undefined, undefined).docs, [])
  t.throws(
    () => {
      snap.insert({ _id: 2001, k: 'k7' })
    },
    { code: 11000 },
    'unique indexes are enforced within the snapshot'
  )
  live.insert({ _id: 2001, k: 'private' })
  t.equal(
    select(live, { k: 'private' }, {}, undefined, undefined).docs.length,
    1,
    'and separately in the live collection'
  )
})
