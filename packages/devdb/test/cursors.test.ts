import t from 'tap'
import { Long } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

// 1.5 s: long enough for a loaded machine between a find and its getMore, short enough to wait for
const h = await setup(t, { cursorTimeoutMs: 1500 })
const c = h.db.collection('cur')
await c.insertMany(Array.from({ length: 250 }, (_, i) => ({ i })))

t.test('default first batch is 101 and getMore continues', async (t) => {
  const r = await h.db.command({ find: 'cur', filter: {}, sort: { i: 1 } })
  t.equal(r.cursor.firstBatch.length, 101)
  t.ok(r.cursor.id instanceof Long || typeof r.cursor.id === 'number')
  t.not(Number(r.cursor.id), 0)
  t.equal(r.cursor.ns, 'test.cur')
  const more = await h.db.command({ getMore: r.cursor.id, collection: 'cur', batchSize: 100 })
  t.equal(more.cursor.nextBatch.length, 100)
  t.equal(more.cursor.nextBatch[0].i, 101)
  const last = await h.db.command({ getMore: r.cursor.id, collection: 'cur' })
  t.equal(last.cursor.nextBatch.length, 49)
  t.equal(Number(last.cursor.id), 0, 'exhausted cursor id is 0')
  await t.rejects(h.db.command({ getMore: r.cursor.id, collection: 'cur' }), { code: 43, codeName: 'CursorNotFound' })
})

t.test('driver iterates across batches', async (t) => {
  const all = await c.find({}, { batchSize: 7 }).sort({ i: -1 }).toArray()
  t.equal(all.length, 250)
  t.equal(all[0].i, 249)
  t.equal(all[249].i, 0)
})

t.test('limit, singleBatch, batchSize 0', async (t) => {
  const r = await h.db.command({ find: 'cur', filter: {}, limit: 5, batchSize: 2 })
  t.equal(r.cursor.firstBatch.length, 2)
  const r2 = await h.db.command({ find: 'cur', filter: {}, singleBatch: true, batchSize: 3 })
  t.equal(r2.cursor.firstBatch.length, 3)
  t.equal(Number(r2.cursor.id), 0)
  const r3 = await h.db.command({ find: 'cur', filter: {}, batchSize: 0 })
  t.equal(r3.cursor.firstBatch.length, 0)
  t.not(Number(r3.cursor.id), 0)
  const more = await h.db.command({ getMore: r3.cursor.id, collection: 'cur' })
  t.equal(more.cursor.nextBatch.length, 250)
})

t.test('killCursors', async (t) => {
  const r = await h.db.command({ find: 'cur', filter: {}, batchSize: 1 })
  const k = await h.db.command({ killCursors: 'cur', cursors: [r.cursor.id, Long.fromNumber(12345)] })
  t.same(k.cursorsKilled.map(Number), [Number(r.cursor.id)])
  t.same(k.cursorsNotFound.map(Number), [12345])
  await t.rejects(h.db.command({ getMore: r.cursor.id, collection: 'cur' }), { code: 43 })
})

t.test('getMore on another namespace is refused', async (t) => {
  const r = await h.db.command({ find: 'cur', filter: {}, batchSize: 1 })
  await t.rejects(h.db.command({ getMore: r.cursor.id, collection: 'other' }), { code: 13 })
})

t.test('idle cursors time out', async (t) => {
  const r = await h.db.command({ find: 'cur', filter: {}, batchSize: 1 })
  const before = (await h.db.admin().command({ serverStatus: 1 })).metrics.cursor.open.total
  t.ok(before >= 1)
  await new Promise((resolve) => setTimeout(resolve, 2400))
  await t.rejects(h.db.command({ getMore: r.cursor.id, collection: 'cur' }), { code: 43 })
  const after = (await h.db.admin().command({ serverStatus: 1 })).metrics.cursor.open.total
  t.equal(after, 0)
})

t.test('aggregate cursors batch too', async (t) => {
  const cur = c.aggregate([{ $match: { i: { $lt: 150 } } }], { batchSize: 10 })
  const seen: unknown[] = []
  for await (const doc of cur) seen.push(doc)
  t.equal(seen.length, 150)
})
