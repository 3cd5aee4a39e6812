import t from 'tap'
import type { Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const coll = h.db.collection('events')
const BASE = Date.UTC(2024, 0, 1)
// 50 tenants × 100 events, inserted in one batch.
const all = Array.from({ length: 5000 }, (_, i) => ({
  _id: i,
  userId: `u${i % 50}`,
  createdAt: new Date(BASE + i * 1000),
  ref: i,
  status: ['a', 'b', 'c'][i % 3]
}))
await coll.insertMany(all as never)
await coll.createIndex({ userId: 1, createdAt: -1 })
await coll.createIndex({ userId: 1, ref: 1 })

const stages = (plan: Document): string[] => [
  plan.stage,
  ...(plan.inputStage !== undefined ? stages(plan.inputStage) : [])
]
const find = (plan: Document, name: string): Document | undefined => {
  if (plan.stage === name) return plan
  for (const c of [plan.inputStage, ...(plan.inputStages ?? [])]) {
    if (c === undefined) continue
    const hit = find(c, name)
    if (hit !== undefined) return hit
  }
  return undefined
}
const scanned = async (): Promise<{ docs: number; keys: number }> => {
  const q = (await h.db.admin().command({ serverStatus: 1 })).metrics.queryExecutor
  return { docs: q.scannedObjects, keys: q.scanned }
}
const u7 = all.filter((d) => d.userId === 'u7')

t.test('a sorted page of one tenant walks the compound index and stops after the page', async (t) => {
  const cursor = coll.find({ userId: 'u7' }).sort({ createdAt: -1 }).limit(20)
  const docs = await cursor.toArray()
  t.same(
    docs.map((d) => d._id),
    u7
      .map((d) => d._id)
      .reverse()
      .slice(0, 20)
  )
  const ex = await coll.find({ userId: 'u7' }).sort({ createdAt: -1 }).limit(20).explain('executionStats')
  t.same(stages(ex.queryPlanner.winningPlan), ['LIMIT', 'FETCH', 'IXSCAN'])
  const ix = find(ex.queryPlanner.winningPlan, 'IXSCAN') as Document
  t.equal(ix.indexName, 'userId_1_createdAt_-1')
  t.same(ix.keyPattern, { userId: 1, createdAt: -1 })
  t.equal(ix.direction, 'forward')
  t.same(ix.indexBounds, { userId: ['["u7", "u7"]'], createdAt: ['[MaxKey, MinKey]'] })
  t.equal(ex.executionStats.nReturned, 20)
  t.equal(ex.executionStats.totalKeysExamined, 20)
  t.equal(ex.executionStats.totalDocsExamined, 20)
  t.equal(ex.executionStats.executionStages.stage, 'LIMIT')
  const asc = await coll.find({ userId: 'u7' }).sort({ createdAt: 1 }).limit(5).explain('executionStats')
  const ixAsc = find(asc.queryPlanner.winningPlan, 'IXSCAN') as Document
  t.equal(ixAsc.direction, 'backward', 'the opposite sort walks the index backward')
  t.same(ixAsc.indexBounds.createdAt, ['[MinKey, MaxKey]'])
  t.equal(asc.executionStats.totalKeysExamined, 5)
  t.same(
    (await coll.find({ userId: 'u7' }).sort({ createdAt: 1 }).limit(5).toArray()).map((d) => d._id),
    u7.slice(0, 5).map((d) => d._id)
  )
})

t.test('the plan cache skips the trial for a query shape already planned', async (t) => {
  const page = async (u: string): Promise<unknown[]> =>
    await coll.find({ userId: u }).sort({ createdAt: -1 }).limit(20).toArray()
  await coll.createIndex({ status: 1 }) // any index change clears the cache
  let before = await scanned()
  await page('u11')
  const first = (await scanned()).keys - before.keys
  t.ok(first > 20, `the first query of the shape ran a trial of both candidate plans (${first} keys)`)
  before = await scanned()
  t.equal((await page('u12')).length, 20)
  t.equal((await scanned()).keys - before.keys, 20, 'the next one runs the cached plan alone: 20 keys')
  t.equal((await scanned()).docs - before.docs, 20)
  const ex = await coll.find({ userId: 'u12' }).sort({ createdAt: -1 }).limit(20).explain('queryPlanner')
  t.equal(ex.queryPlanner.rejectedPlans.length, 1, 'explain plans afresh and shows the rejected plan')
  await coll.dropIndex('status_1')
})

t.test('skip and limit stack as mongod does and examine skip + limit keys', async (t) => {
  const ex = await coll.find({ userId: 'u3' }).sort({ createdAt: -1 }).skip(10).limit(5).explain('executionStats')
  t.same(stages(ex.queryPlanner.winningPlan), ['LIMIT', 'SKIP', 'FETCH', 'IXSCAN'])
  t.equal(ex.executionStats.totalKeysExamined, 15)
  const ids = (await coll.find({ userId: 'u3' }).sort({ createdAt: -1 }).skip(10).limit(5).toArray()).map((d) => d._id)
  t.same(
    ids,
    all
      .filter((d) => d.userId === 'u3')
      .reverse()
      .slice(10, 15)
      .map((d) => d._id)
  )
})

t.test('$in of 200 values on the non-leading key is a union of point ranges', async (t) => {
  const refs = [...u7.map((d) => d.ref), ...Array.from({ length: 100 }, (_, i) => 100_000 + i)]
  const filter = { userId: 'u7', ref: { $in: refs } }
  const ex = await coll.find(filter).explain('executionStats')
  const ix = find(ex.queryPlanner.winningPlan, 'IXSCAN') as Document
  t.equal(ix.indexName, 'userId_1_ref_1')
  t.equal(ix.indexBounds.ref.length, 200)
  t.equal(ex.executionStats.nReturned, 100)
  t.equal(ex.executionStats.totalKeysExamined, 100, 'one key per match; the misses cost a seek each, no key')
  t.equal(ex.executionStats.totalDocsExamined, 100)
  t.equal(find(ex.executionStats.executionStages, 'IXSCAN')?.seeks, 200)
  t.equal((await coll.find(filter).toArray()).length, 100)
})

t.test('a count of one tenant is a COUNT_SCAN: keys only, no documents', async (t) => {
  const ex = await h.db.command({ explain: { count: 'events', query: { userId: 'u7' } }, verbosity: 'executionStats' })
  t.same(stages(ex.queryPlanner.winningPlan), ['COUNT', 'COUNT_SCAN'])
  t.equal(ex.executionStats.totalDocsExamined, 0)
  t.equal(ex.executionStats.totalKeysExamined, 100)
  const before = await scanned()
  t.equal((await h.db.command({ count: 'events', query: { userId: 'u7' } })).n, 100)
  t.equal((await scanned()).docs - before.docs, 0, 'no document fetched')
  t.equal((await h.db.command({ count: 'events', query: { userId: 'u7' }, skip: 90, limit: 5 })).n, 5)
  const range = await h.db.command({
    explain: { count: 'events', query: { userId: 'u7', ref: { $gte: 1000 } } },
    verbosity: 'executionStats'
  })
  t.equal(find(range.queryPlanner.winningPlan, 'COUNT_SCAN')?.indexName, 'userId_1_ref_1')
  t.equal((await h.db.command({ count: 'events', query: { userId: 'u7', ref: { $gte: 1000 } } })).n, 80)
  const inexact = await h.db.command({
    explain: { count: 'events', query: { userId: 'u7', status: 'a' } },
    verbosity: 'executionStats'
  })
  t.same(
    stages(inexact.queryPlanner.winningPlan).slice(0, 2),
    ['COUNT', 'FETCH'],
    'a predicate outside the index needs the documents'
  )
  t.equal(
    (await h.db.command({ count: 'events', query: { userId: 'u7', status: 'a' } })).n,
    u7.filter((d) => d.status === 'a').length
  )
  const viaDriver = await scanned()
  t.equal(
    await coll.countDocuments({ userId: 'u7' }),
    100,
    "the driver's countDocuments ($match + $group) counts keys too"
  )
  t.equal((await scanned()).docs - viaDriver.docs, 0)
  const agg = await coll
    .aggregate([{ $match: { userId: 'u7' } }, { $group: { _id: 1, n: { $sum: 1 } } }])
    .explain('executionStats')
  t.same(stages(agg.stages[0].$cursor.queryPlanner.winningPlan), ['COUNT', 'COUNT_SCAN'])
  t.same(await coll.aggregate([{ $match: { userId: 'u7', ref: { $lt: 500 } } }, { $count: 'total' }]).toArray(), [
    { total: 10 }
  ])
  t.same(await coll.aggregate([{ $match: { userId: 'nobody' } }, { $count: 'total' }]).toArray(), [])
  t.same(
    await coll
      .aggregate([{ $match: { userId: 'u7' } }, { $skip: 95 }, { $group: { _id: null, n: { $sum: 2 } } }])
      .toArray(),
    [{ _id: null, n: 10 }]
  )
  const fast = await h.db.command({ explain: { count: 'events' }, verbosity: 'queryPlanner' })
  t.equal(fast.queryPlanner.winningPlan.stage, 'RECORD_STORE_FAST_COUNT')
})

t.test(
  'a soft-delete scope (`deletedAt: null`) is counted from keys while no document holds an array there',
  async (t) => {
    const live = h.db.collection('live')
    // u1: 30 records never deleted (no field), 5 with an explicit null, 10 deleted; u2: 7 never deleted.
    await live.insertMany([
      ...Array.from({ length: 30 }, (_, i) => ({ userId: 'u1', createdAt: new Date(BASE + i) })),
      ...Array.from({ length: 5 }, (_, i) => ({ userId: 'u1', createdAt: new Date(BASE + 100 + i), deletedAt: null })),
      ...Array.from({ length: 10 }, (_, i) => ({
        userId: 'u1',
        createdAt: new Date(BASE + 200 + i),
        deletedAt: new Date(BASE)
      })),
      ...Array.from({ length: 7 }, (_, i) => ({
        userId: 'u2',
        createdAt: new Date(BASE + 300 + i),
        meta: { gone: null }
      }))
    ])
    await live.createIndex({ userId: 1, deletedAt: 1, createdAt: -1, _id: -1 })
    await live.createIndex({ userId: 1, 'meta.gone': 1 })
    const count = async (query: Document): Promise<{ n: number; plan: string[]; docs: number }> => {
      const ex = await h.db.command({ explain: { count: 'live', query }, verbosity: 'executionStats' })
      const { n } = await h.db.command({ count: 'live', query })
      return { n, plan: stages(ex.queryPlanner.winningPlan), docs: ex.executionStats.totalDocsExamined }
    }
    t.same(await count({ userId: 'u1', deletedAt: null }), { n: 35, plan: ['COUNT', 'COUNT_SCAN'], docs: 0 })
    t.same(await count({ userId: 'u1', deletedAt: { $eq: null } }), { n: 35, plan: ['COUNT', 'COUNT_SCAN'], docs: 0 })
    t.equal(await live.countDocuments({ userId: 'u1', deletedAt: null }), 35, 'the driver counts the same')
    t.equal((await count({ userId: 'u2', 'meta.gone': null })).plan[1], 'FETCH', 'a dotted path is left to the filter')
    t.equal((await count({ userId: 'u2', 'meta.gone': null })).n, 7)
    t.equal(
      (await count({ userId: 'u1', deletedAt: { $exists: false } })).n,
      30,
      '$exists: false still tells null from missing'
    )
    const page = await live
      .find({ userId: 'u1', deletedAt: null })
      .sort({ createdAt: -1, _id: -1 })
      .limit(20)
      .explain('executionStats')
    t.same(
      stages(page.queryPlanner.winningPlan),
      ['LIMIT', 'FETCH', 'IXSCAN'],
      'the live page walks the index in order'
    )
    t.equal(page.executionStats.totalDocsExamined, 20, 'and fetches just the page')
    // An array in the field makes the index multikey: `null` then also matches arrays holding null, so the
    // null point bounds nothing and the count reads the tenant's documents.
    await live.insertOne({ userId: 'u1', createdAt: new Date(BASE + 400), deletedAt: [null, new Date(BASE)] })
    t.same(await count({ userId: 'u1', deletedAt: null }), { n: 36, plan: ['COUNT', 'FETCH', 'IXSCAN'], docs: 46 })
    const sparse = h.db.collection('live_sparse')
    await sparse.insertMany([{ userId: 'u1' }, { userId: 'u1', deletedAt: null }, { userId: 'u1', deletedAt: 1 }])
    await sparse.createIndex({ deletedAt: 1 }, { sparse: true })
    t.equal(
      (await h.db.command({ count: 'live_sparse', query: { deletedAt: null } })).n,
      2,
      'a sparse index never answers null'
    )
  }
)

t.test('null points answer what a collection scan answers, whatever the field holds', async (t) => {
  const mixed = h.db.collection('null_points')
  const values = [undefined, null, 0, '', false, 'a', new Date(BASE), { a: null }]
  await mixed.insertMany(
    Array.from({ length: 400 }, (_, i) => {
      const v = values[(i * 7) % values.length]
      return { g: i % 4, ...(v === undefined ? {} : { x: v }), nested: i % 3 === 0 ? 5 : { y: v ?? null } }
    })
  )
  await mixed.createIndex({ g: 1, x: 1 })
  await mixed.createIndex({ g: 1, 'nested.y': 1 })
  for (const filter of [{ g: 2, x: null }, { g: 1, x: { $eq: null } }, { g: 3, 'nested.y': null }, { x: null }]) {
    const scan = await h.db.command({ count: 'null_points', query: filter, hint: { $natural: 1 } })
    const planned = await h.db.command({ count: 'null_points', query: filter })
    t.equal(planned.n, scan.n, `count ${JSON.stringify(filter)}`)
    const found = await mixed.find(filter).sort({ _id: 1 }).toArray()
    const scanned = await mixed.find(filter).hint({ $natural: 1 }).sort({ _id: 1 }).toArray()
    t.same(found, scanned, `find ${JSON.stringify(filter)}`)
  }
})

t.test('$in on the leading key with a sort on the next one merges per-point scans', async (t) => {
  const filter = { userId: { $in: ['u1', 'u2', 'u3'] } }
  const ex = await coll.find(filter).sort({ createdAt: -1 }).limit(10).explain('executionStats')
  const merge = find(ex.queryPlanner.winningPlan, 'SORT_MERGE') as Document
  t.ok(merge !== undefined, 'SORT_MERGE, no blocking SORT')
  t.equal(find(ex.queryPlanner.winningPlan, 'SORT'), undefined)
  t.equal(merge.inputStages.length, 3)
  t.ok(ex.executionStats.totalKeysExamined <= 13, `examined ${String(ex.executionStats.totalKeysExamined)} keys`)
  const expected = all
    .filter((d) => ['u1', 'u2', 'u3'].includes(d.userId))
    .sort((a, b) => b._id - a._id)
    .slice(0, 10)
  t.same(
    (await coll.find(filter).sort({ createdAt: -1 }).limit(10).toArray()).map((d) => d._id),
    expected.map((d) => d._id)
  )
})

t.test('ranges bound the next key and stay inside their type', async (t) => {
  const from = new Date(BASE + 1000 * 1000)
  const to = new Date(BASE + 2000 * 1000)
  const filter = { userId: 'u7', createdAt: { $gte: from, $lt: to } }
  const ex = await coll.find(filter).explain('executionStats')
  const ix = find(ex.queryPlanner.winningPlan, 'IXSCAN') as Document
  t.equal(ix.indexName, 'userId_1_createdAt_-1')
  t.same(ix.indexBounds.createdAt, [`(new Date(${to.getTime()}), new Date(${from.getTime()})]`])
  const expected = u7.filter((d) => d.createdAt >= from && d.createdAt < to)
  t.equal(ex.executionStats.totalKeysExamined, expected.length)
  t.same(
    (await coll.find(filter).toArray()).map((d) => d._id as unknown as number).sort((a, b) => a - b),
    expected.map((d) => d._id)
  )
})

t.test('hint forces an index, $natural a collection scan; an unknown hint is refused', async (t) => {
  const byName = await coll.find({ userId: 'u7' }).hint('userId_1_ref_1').explain('queryPlanner')
  t.equal(find(byName.queryPlanner.winningPlan, 'IXSCAN')?.indexName, 'userId_1_ref_1')
  t.same(byName.queryPlanner.rejectedPlans, [])
  const byKey = await coll.find({ status: 'a' }).hint({ userId: 1, createdAt: -1 }).explain('executionStats')
  t.equal(
    find(byKey.queryPlanner.winningPlan, 'IXSCAN')?.indexName,
    'userId_1_createdAt_-1',
    'even without a predicate on it'
  )
  t.equal(byKey.executionStats.nReturned, all.filter((d) => d.status === 'a').length)
  const natural = await coll.find({ userId: 'u7' }).hint({ $natural: -1 }).explain('queryPlanner')
  t.same(stages(natural.queryPlanner.winningPlan), ['COLLSCAN'])
  t.equal(natural.queryPlanner.winningPlan.direction, 'backward')
  const e = await mongoError(async () => await coll.find({ userId: 'u7' }).hint('nope').toArray())
  t.equal(e.code, 2)
  t.equal(e.message, 'hint provided does not correspond to an existing index')
})

t.test('without a usable index: COLLSCAN and a blocking SORT (top-k with a limit)', async (t) => {
  const ex = await coll.find({ status: 'b' }).sort({ ref: -1 }).limit(3).explain('executionStats')
  t.same(stages(ex.queryPlanner.winningPlan), ['SORT', 'COLLSCAN'])
  t.equal(ex.queryPlanner.winningPlan.limitAmount, 3)
  t.same(ex.queryPlanner.winningPlan.sortPattern, { ref: -1 })
  t.equal(ex.executionStats.totalDocsExamined, 5000)
  t.same(
    (await coll.find({ status: 'b' }).sort({ ref: -1 }).limit(3).toArray()).map((d) => d.ref),
    all
      .filter((d) => d.status === 'b')
      .map((d) => d.ref)
      .reverse()
      .slice(0, 3)
  )
})

t.test('a blocking sort over the memory limit fails with 292 unless disk use is allowed', async (t) => {
  await h.db.admin().command({ setParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 100_000 })
  t.teardown(async () => {
    await h.db.admin().command({
      setParameter: 1,
      internalQueryMaxBlockingSortMemoryUsageBytes: 104857600,
      allowDiskUseByDefault: true
    })
  })
  const e = await mongoError(async () => await coll.find({}).sort({ status: 1 }).allowDiskUse(false).toArray())
  t.equal(e.code, 292)
  t.equal(e.codeName, 'QueryExceededMemoryLimitNoDiskUseAllowed')
  t.equal(
    e.message,
    'Executor error during find command :: caused by :: Sort exceeded memory limit of 100000 bytes, but did not opt in to external sorting.'
  )
  const ea = await mongoError(
    async () => await coll.aggregate([{ $sort: { status: 1 } }], { allowDiskUse: false }).toArray()
  )
  t.equal(ea.code, 292)
  t.match(ea.message, /^PlanExecutor error during aggregation :: caused by :: Sort exceeded memory limit/)
  t.equal(
    (await coll.find({}).sort({ status: 1 }).toArray()).length,
    5000,
    'allowDiskUseByDefault (true in 7.0) lets it through'
  )
  t.equal(
    (await coll.find({}).sort({ status: 1 }).limit(10).allowDiskUse(false).toArray()).length,
    10,
    'a top-k sort holds only k documents'
  )
  await h.db.admin().command({ setParameter: 1, allowDiskUseByDefault: false })
  t.equal((await mongoError(async () => await coll.find({}).sort({ status: 1 }).toArray())).code, 292)
  t.equal((await coll.find({}).sort({ status: 1 }).allowDiskUse(true).toArray()).length, 5000)
})

t.test('aggregate: a leading $match/$sort/$limit runs through the planner', async (t) => {
  const ex = await coll
    .aggregate([{ $match: { userId: 'u7' } }, { $sort: { createdAt: -1 } }, { $limit: 20 }])
    .explain('executionStats')
  t.equal(find(ex.queryPlanner.winningPlan, 'IXSCAN')?.indexName, 'userId_1_createdAt_-1')
  t.equal(ex.executionStats.totalKeysExamined, 20)
  const grouped = await coll
    .aggregate([{ $match: { userId: 'u7' } }, { $group: { _id: '$status', n: { $sum: 1 } } }])
    .explain('executionStats')
  t.equal(grouped.stages[0].$cursor.queryPlanner.winningPlan.stage, 'FETCH')
  t.same(grouped.stages.slice(1), [{ $group: { _id: '$status', n: { $sum: 1 } } }])
  const legacy = await h.db.command({ aggregate: 'events', pipeline: [{ $match: { userId: 'u7' } }], explain: true })
  t.ok(legacy.queryPlanner !== undefined, 'the explain: true option answers with the query plan')
  t.same(
    (
      await coll
        .aggregate([{ $match: { userId: 'u7' } }, { $sort: { createdAt: -1 } }, { $skip: 2 }, { $limit: 3 }])
        .toArray()
    ).map((d) => d._id),
    u7
      .map((d) => d._id)
      .reverse()
      .slice(2, 5)
  )
})

t.test('update, delete and findAndModify select through the planner', async (t) => {
  const w = h.db.collection('writes')
  await w.insertMany(Array.from({ length: 2000 }, (_, i) => ({ _id: i, userId: `u${i % 20}`, at: i })) as never)
  await w.createIndex({ userId: 1, at: -1 })
  let before = await scanned()
  t.equal((await w.updateOne({ userId: 'u3', at: 1003 }, { $set: { hit: 1 } })).modifiedCount, 1)
  t.equal((await scanned()).docs - before.docs, 1)
  before = await scanned()
  t.equal((await w.updateMany({ userId: 'u4' }, { $set: { hit: 2 } })).modifiedCount, 100)
  t.equal((await scanned()).docs - before.docs, 100)
  before = await scanned()
  const newest = await w.findOneAndUpdate(
    { userId: 'u5' },
    { $set: { taken: true } },
    { sort: { at: -1 }, returnDocument: 'after' }
  )
  t.equal(newest?._id, 1985)
  t.equal((await scanned()).docs - before.docs, 1, 'the index gives the newest first: one document')
  before = await scanned()
  t.equal((await w.deleteOne({ userId: 'u6', at: 6 })).deletedCount, 1)
  t.equal((await scanned()).docs - before.docs, 1)
  t.equal(await w.countDocuments({ userId: 'u6' }), 99)
})

t.test('explain verbosities and refusals', async (t) => {
  const qp = await h.db.command({ explain: { find: 'events', filter: { userId: 'u1' } }, verbosity: 'queryPlanner' })
  t.equal(qp.executionStats, undefined)
  t.equal(qp.explainVersion, '1')
  t.same(qp.command, { find: 'events', filter: { userId: 'u1' }, $db: 'test' })
  const distinct = await h.db.command({
    explain: { distinct: 'events', key: 'status', query: { userId: 'u1' } },
    verbosity: 'executionStats'
  })
  t.equal(distinct.executionStats.totalDocsExamined, 100)
  t.equal(
    (await mongoError(async () => await h.db.command({ explain: { find: 'events' }, verbosity: 'loud' }))).code,
    9
  )
  t.equal((await mongoError(async () => await h.db.command({ explain: { update: 'events', updates: [] } }))).code, 238)
  t.equal((await mongoError(async () => await h.db.command({ explain: { nope: 'events' } }))).code, 59)
})
