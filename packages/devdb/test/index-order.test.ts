import t, { type Test } from 'tap'
import { Decimal128, Long, MaxKey, MinKey, ObjectId, type Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const plan = (ex: Document): string[] => {
  const out: string[] = []
  const walk = (p: Document | undefined): void => {
    if (p === undefined) return
    out.push(p.stage === 'IXSCAN' ? `IXSCAN ${String(p.indexName)}` : p.stage)
    walk(p.inputStage)
  }
  walk(ex.queryPlanner.winningPlan)
  return out
}

/** Results of a query through an index (hinted) and through a collection scan must be the same documents. */
async function sameThroughIndex (
  t: Test,
  coll: string,
  index: string,
  filter: Document,
  sort?: Document
): Promise<void> {
  const c = h.db.collection(coll)
  const viaIndex = await c.find(filter, { sort, hint: index }).toArray()
  const viaScan = await c.find(filter, { sort, hint: { $natural: 1 } }).toArray()
  const ids = (docs: Document[]): string[] => docs.map((d) => String(d._id))
  if (sort === undefined) t.same(ids(viaIndex).sort(), ids(viaScan).sort(), `${JSON.stringify(filter)} via ${index}`)
  else t.same(ids(viaIndex), ids(viaScan), `${JSON.stringify(filter)} sorted ${JSON.stringify(sort)} via ${index}`)
}

const oid = new ObjectId('650000000000000000000001')
const date = new Date(Date.UTC(2024, 0, 1))
const mixed: Document[] = [
  { _id: 1, v: 1 },
  { _id: 2, v: 2.5 },
  { _id: 3, v: Long.fromNumber(3) },
  { _id: 4, v: Decimal128.fromString('4') },
  { _id: 5, v: 'a' },
  { _id: 6, v: 'B' },
  { _id: 7, v: null },
  { _id: 8 },
  { _id: 9, v: { x: 1 } },
  { _id: 10, v: true },
  { _id: 11, v: false },
  { _id: 12, v: date },
  { _id: 13, v: oid },
  { _id: 14, v: new MinKey() },
  { _id: 15, v: new MaxKey() },
  { _id: 16, v: NaN },
  { _id: 17, v: -Infinity },
  { _id: 18, v: 1.0 },
  { _id: 19, v: '' },
  { _id: 20, v: {} }
]

t.test('an index walks mixed types in BSON order, ascending and descending', async (t) => {
  const c = h.db.collection('mixed')
  await c.insertMany(mixed)
  await c.createIndex({ v: 1 })
  await c.createIndex({ v: -1, _id: 1 }, { name: 'v_desc' })
  for (const dir of [1, -1] as const) {
    const viaIndex = await c.find({}).sort({ v: dir, _id: 1 }).hint('v_1').toArray()
    const viaScan = await c.find({}).sort({ v: dir, _id: 1 }).hint({ $natural: 1 }).toArray()
    t.same(
      viaIndex.map((d) => d._id),
      viaScan.map((d) => d._id),
      `direction ${dir}`
    )
  }
  const walk = await c.find({}).sort({ v: 1 }).explain('queryPlanner')
  t.same(plan(walk), ['FETCH', 'IXSCAN v_1'], 'the sort comes from the index')
  t.same(
    (await c.find({}).sort({ v: 1 }).toArray()).map((d) => d._id),
    [14, 7, 8, 16, 17, 1, 18, 2, 3, 4, 19, 6, 5, 20, 9, 13, 11, 10, 12, 15]
  )
  t.same(
    (await c.find({}).sort({ v: -1, _id: 1 }).limit(3).toArray()).map((d) => d._id),
    [15, 12, 10]
  )
  t.same(plan(await c.find({}).sort({ v: -1, _id: 1 }).explain('queryPlanner')), ['FETCH', 'IXSCAN v_desc'])
})

t.test('equality and ranges through the index match the collection scan', async (t) => {
  const filters: Document[] = [
    { v: 1 },
    { v: Long.fromNumber(1) },
    { v: Decimal128.fromString('1.0') },
    { v: 'a' },
    { v: null },
    { v: { x: 1 } },
    { v: {} },
    { v: { $gt: 1 } },
    { v: { $gte: 1 } },
    { v: { $lt: 3 } },
    { v: { $lte: 2.5 } },
    { v: { $gt: 'A' } },
    { v: { $lt: 'b' } },
    { v: { $gte: date } },
    { v: { $gt: false } },
    { v: { $in: [1, 'a', null, true] } },
    { v: { $in: [] } },
    { v: { $gt: 1, $lt: 4 } },
    { v: { $exists: false } },
    { v: { $gte: -Infinity } },
    { v: { $ne: 1 } },
    { v: { $eq: oid } }
  ]
  for (const f of filters) await sameThroughIndex(t, 'mixed', 'v_1', f)
  for (const f of filters.slice(0, 8)) await sameThroughIndex(t, 'mixed', 'v_desc', f, { v: -1, _id: 1 })
  const nullPlan = await h.db.collection('mixed').find({ v: null }).explain('executionStats')
  t.same(plan(nullPlan), ['FETCH', 'IXSCAN v_1'])
  t.same(
    (await h.db.collection('mixed').find({ v: null }).toArray()).map((d) => d._id).sort(),
    [7, 8],
    'null matches null and missing'
  )
})

t.test('multikey: arrays, [] and nested paths', async (t) => {
  const c = h.db.collection('multi')
  await c.insertMany([
    { _id: 1, tags: ['x', 'y'] },
    { _id: 2, tags: [] },
    { _id: 3, tags: 'x' },
    { _id: 4 },
    { _id: 5, tags: [['x']] },
    { _id: 6, tags: ['y', 'y', 'z'] },
    { _id: 7, tags: null },
    { _id: 8, tags: [3, 1, 2] },
    { _id: 9, a: [{ b: 1 }, { b: 5 }] },
    { _id: 10, a: [{ b: 2 }, { c: 1 }] },
    { _id: 11, a: { b: [3, 4] } }
  ] as never)
  await c.createIndex({ tags: 1 })
  await c.createIndex({ 'a.b': 1 })
  const ix = (await c.find({ tags: 'x' }).explain('queryPlanner')).queryPlanner.winningPlan.inputStage
  t.equal(ix.isMultiKey, true)
  t.same(ix.multiKeyPaths, { tags: ['tags'] })
  for (const f of [
    { tags: 'x' },
    { tags: 'y' },
    { tags: { $in: ['y', 'z'] } },
    { tags: [] },
    { tags: ['x'] },
    { tags: null },
    { tags: { $exists: false } },
    { tags: { $gt: 1, $lt: 3 } },
    { tags: { $gte: 2 } }
  ]) {
    await sameThroughIndex(t, 'multi', 'tags_1', f)
  }
  for (const f of [
    { 'a.b': 1 },
    { 'a.b': { $gt: 1 } },
    { 'a.b': null },
    { 'a.b': { $in: [2, 4] } },
    { 'a.b': { $gt: 1, $lt: 3 } }
  ]) {
    await sameThroughIndex(t, 'multi', 'a.b_1', f)
  }
  t.same(
    (await c.find({ tags: 'y' }).toArray()).map((d) => d._id),
    [1, 6],
    'a document with repeated keys is returned once'
  )
  t.same(
    (await c.find({ tags: { $gt: 1, $lt: 3 } }).toArray()).map((d) => d._id).sort(),
    [8],
    'range predicates on an array may match different elements'
  )
  t.same(
    plan(await c.find({}).sort({ tags: 1 }).limit(2).explain('queryPlanner'))[0],
    'SORT',
    'a multikey index cannot give the sort'
  )
  const e = await mongoError(
    async () =>
      await h.db
        .collection('parallel')
        .createIndex({ p: 1, q: 1 })
        .then(async () => await h.db.collection('parallel').insertOne({ p: [1, 2], q: [3, 4] }))
  )
  t.equal(e.code, 171)
  t.match(e.message, /^cannot index parallel arrays/)
})

t.test('sparse and partial indexes are used only when they hold every match', async (t) => {
  const c = h.db.collection('sp')
  await c.insertMany(
    Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? { _id: i, s: i, p: i } : { _id: i, p: i })) as never
  )
  await c.createIndex({ s: 1 }, { sparse: true })
  await c.createIndex({ p: 1 }, { partialFilterExpression: { p: { $gt: 10 } } })
  t.same(plan(await c.find({ s: 4 }).explain('queryPlanner')), ['FETCH', 'IXSCAN s_1'])
  t.same(
    plan(await c.find({ s: null }).explain('queryPlanner')),
    ['COLLSCAN'],
    'a sparse index lacks the documents missing s'
  )
  t.equal((await c.find({ s: null }).toArray()).length, 20)
  t.same(
    plan(await c.find({}).sort({ s: 1 }).limit(5).explain('queryPlanner'))[0],
    'SORT',
    'nor may it give a sort over every document'
  )
  t.equal((await c.find({}).sort({ s: 1 }).limit(30).toArray()).length, 30)
  t.same(plan(await c.find({ p: { $gt: 20 } }).explain('queryPlanner')), ['FETCH', 'IXSCAN p_1'])
  t.same(plan(await c.find({ p: 15 }).explain('queryPlanner')), ['FETCH', 'IXSCAN p_1'])
  t.same(
    plan(await c.find({ p: { $gt: 5 } }).explain('queryPlanner')),
    ['COLLSCAN'],
    'p > 5 reaches outside the partial filter'
  )
  t.equal((await c.find({ p: { $gt: 5 } }).toArray()).length, 34)
  t.same(
    plan(
      await c
        .find({ p: { $gt: 5 } })
        .hint('p_1')
        .explain('queryPlanner')
    ),
    ['FETCH', 'IXSCAN p_1'],
    'a hint forces it (and sees only its documents)'
  )
})

t.test('cursors resume where they left off while the collection changes', async (t) => {
  const c = h.db.collection('resume')
  await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, g: i % 3, at: i })) as never)
  await c.createIndex({ g: 1, at: -1 })
  const cursor = c.find({ g: 1 }).sort({ at: -1 }).batchSize(10)
  const seen: number[] = []
  let k = 1000
  for await (const d of cursor) {
    seen.push(d.at as number)
    if (seen.length % 10 === 0) await c.insertOne({ _id: k as never, g: 1, at: k++ })
    if (seen.length === 20) await c.deleteOne({ at: 31 })
  }
  t.same(
    seen,
    [...seen].sort((a, b) => b - a),
    'still in index order'
  )
  t.equal(new Set(seen).size, seen.length, 'no document twice')
  t.notOk(seen.includes(1000), 'documents inserted behind the cursor are not revisited')
  t.equal(seen.length, 99, 'every remaining document once (100 minus the deleted one)')
})

t.test('getMore of a dropped collection fails with QueryPlanKilled', async (t) => {
  const c = h.db.collection('dropme')
  await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i })) as never)
  const first = await h.db.command({ find: 'dropme', filter: {}, batchSize: 5 })
  await c.drop()
  const e = await mongoError(async () => await h.db.command({ getMore: first.cursor.id, collection: 'dropme' }))
  t.equal(e.code, 175)
  t.equal(e.codeName, 'QueryPlanKilled')
})
