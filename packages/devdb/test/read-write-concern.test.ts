/**
 * Generic arguments as a single-node replica set (and a standalone) answer them — found by the
 * driver's unified spec tests (sessions, transactions, causal consistency, versioned API): read
 * concerns a command does not support, write concerns one node cannot satisfy, the Stable API,
 * the logical time of replies and snapshot reads at a cluster time.
 */
import t from 'tap'
import { Timestamp } from 'mongodb'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t)
const { db } = h
const coll = (name: string) => db.collection<SpecDoc>(name)

t.test('read concerns a command does not support are refused (72)', async (t) => {
  const c = coll('rc')
  const e1 = await mongoError(
    async () => await db.command({ insert: 'rc', documents: [{ _id: 1 }], readConcern: { level: 'snapshot' } })
  )
  t.equal(e1.code, 72)
  t.equal(e1.codeName, 'InvalidOptions')
  const e2 = await mongoError(async () => await db.command({ listCollections: 1, readConcern: { level: 'snapshot' } }))
  t.equal(e2.code, 72)
  const e3 = await mongoError(
    async () =>
      await c.aggregate([{ $match: {} }, { $out: 'rc2' }], { readConcern: { level: 'linearizable' } }).toArray()
  )
  t.equal(e3.code, 72)
  t.match(e3.message, "$out cannot be used with a 'linearizable' read concern level")
  t.equal(await c.countDocuments(), 0, 'the refused insert wrote nothing')
})

t.test(
  'a write concern one node cannot satisfy: the write is applied, the reply carries a writeConcernError',
  async (t) => {
    const r = await mongoError(
      async () => await db.command({ insert: 'wc', documents: [{ _id: 1 }], writeConcern: { w: 2 } })
    )
    t.match(r.errorResponse, {
      n: 1,
      writeConcernError: { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' },
      ok: 1,
      code: 100,
      codeName: 'UnsatisfiableWriteConcern',
      errmsg: 'Not enough data-bearing nodes'
    })
    const r2 = await mongoError(
      async () => await db.command({ delete: 'wc', deletes: [{ q: {}, limit: 0 }], writeConcern: { w: 'dc2' } })
    )
    t.equal((r2.errorResponse as { n: number }).n, 1)
    t.equal(r2.code, 79)
    const e = await mongoError(async () => await coll('wc').insertOne({ _id: 2 }, { writeConcern: { w: 3 } }))
    t.equal(e.code, 100)
    t.equal(await coll('wc').countDocuments(), 1)
    const ok = await db.command({ insert: 'wc', documents: [{ _id: 3 }], writeConcern: { w: 'majority' } })
    t.equal(ok.writeConcernError, undefined)
  }
)

t.test('Stable API: apiStrict refuses commands and stages outside version 1, apiVersion must be "1"', async (t) => {
  await coll('api').insertOne({ _id: 1, x: 1 })
  const e1 = await mongoError(
    async () => await db.command({ distinct: 'api', key: 'x', apiVersion: '1', apiStrict: true })
  )
  t.equal(e1.code, 323)
  t.equal(e1.codeName, 'APIStrictError')
  t.match(e1.message, 'the command distinct is not in API Version 1')
  const e2 = await mongoError(
    async () =>
      await db.command({
        aggregate: 1,
        pipeline: [{ $listLocalSessions: {} }],
        cursor: {},
        apiVersion: '1',
        apiStrict: true
      })
  )
  t.equal(e2.code, 323)
  const e3 = await mongoError(async () => await db.command({ ping: 1, apiVersion: '2' }))
  t.equal(e3.code, 322)
  const e4 = await mongoError(async () => await db.command({ ping: 1, apiStrict: true }))
  t.equal(e4.code, 4886600, 'apiStrict needs an apiVersion')
  const ok = await db.command({ find: 'api', filter: {}, apiVersion: '1', apiStrict: true })
  t.equal(ok.cursor.firstBatch.length, 1)
})

t.test('replies carry operationTime and $clusterTime; a write advances them', async (t) => {
  const r1 = await db.command({ ping: 1 })
  t.ok(r1.operationTime instanceof Timestamp)
  t.ok(r1.$clusterTime.clusterTime instanceof Timestamp)
  t.equal(Number(r1.$clusterTime.signature.keyId), 0)
  const w = await db.command({ insert: 'ct', documents: [{ _id: 1 }] })
  t.ok((w.operationTime as Timestamp).greaterThan(r1.operationTime as Timestamp), 'the write has a later optime')
  const r2 = await db.command({ find: 'ct', filter: {} })
  t.ok((r2.operationTime as Timestamp).equals(w.operationTime as Timestamp), 'a read answers the last optime')
  // a causally consistent session sends afterClusterTime; devdb's one node always satisfies it
  const session = h.client.startSession({ causalConsistency: true })
  await coll('ct').insertOne({ _id: 2 }, { session })
  t.equal((await coll('ct').find({}, { session }).toArray()).length, 2)
  await session.endSession()
  t.equal(
    (await db.command({ create: 'ct2', readConcern: { afterClusterTime: w.operationTime } })).ok,
    1,
    'create takes a readConcern'
  )
})

t.test('snapshot reads outside transactions read the data as of atClusterTime', async (t) => {
  const c = coll('snap')
  await c.insertMany([
    { _id: 1, x: 11 },
    { _id: 2, x: 21 }
  ])
  const session = h.client.startSession({ snapshot: true })
  t.same(await c.find({ _id: 1 }, { session }).toArray(), [{ _id: 1, x: 11 }])
  await c.updateOne({ _id: 1 }, { $inc: { x: 1 } })
  await c.insertOne({ _id: 3, x: 31 })
  // later reads of the session send the first read's atClusterTime
  t.same(await c.find({}, { session }).toArray(), [
    { _id: 1, x: 11 },
    { _id: 2, x: 21 }
  ])
  t.same(await c.aggregate([{ $match: { _id: 1 } }], { session }).toArray(), [{ _id: 1, x: 11 }])
  t.same(await c.distinct('x', {}, { session }), [11, 21])
  t.equal(await c.countDocuments({}, { session }), 2)
  t.same(await c.find({ _id: 1 }).toArray(), [{ _id: 1, x: 12 }], 'other reads see the update')
  const e = await mongoError(async () => await c.insertOne({ _id: 4 }, { session }))
  t.equal(e.code, 72, 'a snapshot session cannot write')
  await session.endSession()
  const raw = await db.command({ find: 'snap', filter: {}, readConcern: { level: 'snapshot' } })
  t.ok(raw.cursor.atClusterTime instanceof Timestamp, 'atClusterTime is echoed in the cursor')
  const distinct = await db.command({
    distinct: 'snap',
    key: 'x',
    readConcern: { level: 'snapshot', atClusterTime: raw.cursor.atClusterTime }
  })
  t.same(distinct.values, [12, 21, 31])
  t.ok(distinct.atClusterTime instanceof Timestamp)
  const old = await mongoError(
    async () =>
      await db.command({
        find: 'snap',
        filter: {},
        readConcern: { level: 'snapshot', atClusterTime: new Timestamp({ t: 1, i: 1 }) }
      })
  )
  t.equal(old.code, 239)
  t.equal(old.codeName, 'SnapshotTooOld')
  const future = await mongoError(
    async () =>
      await db.command({
        find: 'snap',
        filter: {},
        readConcern: { level: 'snapshot', atClusterTime: new Timestamp({ t: 2 ** 31, i: 1 }) }
      })
  )
  t.equal(future.code, 72)
})

t.test(
  'a standalone refuses what needs a replica set: snapshot and linearizable reads, cluster times (123)',
  async (t) => {
    const sa = await setup(t, { replSet: false })
    await sa.db.collection('s').insertOne({ _id: 1 as never })
    const e1 = await mongoError(
      async () => await sa.db.command({ find: 's', filter: {}, readConcern: { level: 'snapshot' } })
    )
    t.equal(e1.code, 123)
    t.equal(e1.codeName, 'NotAReplicaSet')
    t.equal(e1.message, 'node needs to be a replica set member to use readConcern: snapshot')
    const e2 = await mongoError(
      async () => await sa.db.command({ find: 's', filter: {}, readConcern: { level: 'linearizable' } })
    )
    t.equal(e2.code, 123)
    const e3 = await mongoError(
      async () =>
        await sa.db.command({ find: 's', filter: {}, readConcern: { afterClusterTime: new Timestamp({ t: 1, i: 1 }) } })
    )
    t.equal(e3.code, 123)
    const ping = await sa.db.command({ ping: 1 })
    t.equal(ping.operationTime, undefined, 'no logical time on a standalone')
    t.equal(ping.$clusterTime, undefined)
    const w = await sa.db.command({ insert: 's', documents: [{ _id: 2 }], writeConcern: { w: 'majority' } })
    t.equal(w.writeConcernError, undefined)
  }
)
