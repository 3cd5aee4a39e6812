/**
 * Change streams through the official driver's `watch()`: on a collection, a database and the
 * deployment; every event type with mongod's fields; fullDocument / fullDocumentBeforeChange;
 * resume by token and by time; invalidation; the pipeline after $changeStream; transactions
 * (events at the commit, in commit order); the capped history (286); getMore's await.
 */
import t from 'tap'
import { MongoClient, Timestamp, type ChangeStream, type ChangeStreamDocument, type Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'
import { startDevDb } from '../src/index.js'
import { tempDir } from './fixtures/durability/store-helpers.js'

const h = await setup(t)
const AWAIT = { maxAwaitTimeMS: 50 }

/** Opens the stream now (the driver opens it lazily at the first read). */
async function opened<T extends ChangeStream<any, any>> (cs: T): Promise<T> {
  t.teardown(async () => {
    await cs.close()
  })
  t.equal(await cs.tryNext(), null, 'nothing before the stream opened')
  return cs
}

async function take (cs: ChangeStream<any, any>, n: number): Promise<Document[]> {
  const out: Document[] = []
  while (out.length < n) out.push(await cs.next())
  return out
}

t.test('a collection stream: insert, update, replace, delete with mongod fields', async (t) => {
  const c = h.db.collection<any>('cs_basic')
  const cs = await opened(c.watch([], AWAIT))
  await c.insertOne({ _id: 1, a: 1, nested: { x: 1, y: 2 }, list: [1, 2, 3] } as Document)
  await c.updateOne(
    { _id: 1 } as Document,
    { $set: { 'nested.x': 5, b: 'new' }, $unset: { a: '' }, $push: { list: 4 } } as Document
  )
  await c.replaceOne({ _id: 1 } as Document, { only: true })
  await c.deleteOne({ _id: 1 } as Document)
  const [ins, upd, rep, del] = await take(cs, 4)
  t.equal(ins.operationType, 'insert')
  t.same(ins.ns, { db: 'test', coll: 'cs_basic' })
  t.same(ins.documentKey, { _id: 1 })
  t.same(ins.fullDocument, { _id: 1, a: 1, nested: { x: 1, y: 2 }, list: [1, 2, 3] })
  t.ok(ins.clusterTime instanceof Timestamp, 'clusterTime is a Timestamp')
  t.ok(ins.wallTime instanceof Date, 'wallTime is a Date')
  t.type(ins._id._data, 'string')
  t.equal(upd.operationType, 'update')
  t.same(upd.updateDescription, {
    updatedFields: { 'nested.x': 5, b: 'new', 'list.3': 4 },
    removedFields: ['a'],
    truncatedArrays: []
  })
  t.notOk('fullDocument' in upd, 'no fullDocument on an update by default')
  t.equal(rep.operationType, 'replace')
  t.same(rep.fullDocument, { _id: 1, only: true })
  t.equal(del.operationType, 'delete')
  t.same(del.documentKey, { _id: 1 })
  t.ok(upd.clusterTime.greaterThan(ins.clusterTime) && del.clusterTime.greaterThan(rep.clusterTime), 'times increase')
  // a shortened array and a mostly rewritten one
  await c.insertOne({ _id: 2, l: [1, 2, 3, 4], m: [1, 2] } as Document)
  await c.updateOne({ _id: 2 } as Document, { $set: { l: [1, 2], m: [9, 8] } })
  const [, upd2] = await take(cs, 2)
  t.same(upd2.updateDescription, {
    updatedFields: { m: [9, 8] },
    removedFields: [],
    truncatedArrays: [{ field: 'l', newSize: 2 }]
  })
})

t.test('fullDocument and fullDocumentBeforeChange', async (t) => {
  const plain = h.db.collection<any>('cs_plain')
  const lookup = await opened(plain.watch([], { ...AWAIT, fullDocument: 'updateLookup' }))
  const whenAvail = await opened(
    plain.watch([], { ...AWAIT, fullDocument: 'whenAvailable', fullDocumentBeforeChange: 'whenAvailable' })
  )
  await plain.insertOne({ _id: 1, v: 1 } as Document)
  await plain.updateOne({ _id: 1 } as Document, { $inc: { v: 1 } })
  await plain.updateOne({ _id: 1 } as Document, { $inc: { v: 1 } })
  const [, u1, u2] = await take(lookup, 3)
  t.same(u1.fullDocument, { _id: 1, v: 3 }, 'updateLookup reads the document as it is now')
  t.same(u2.fullDocument, { _id: 1, v: 3 })
  const [, w1] = await take(whenAvail, 2)
  t.equal(w1.fullDocument, null, 'no post-image without changeStreamPreAndPostImages')
  t.equal(w1.fullDocumentBeforeChange, null)
  const required = plain.watch([], {
    ...AWAIT,
    fullDocumentBeforeChange: 'required',
    startAtOperationTime: u1.clusterTime
  })
  t.teardown(async () => {
    await required.close()
  })
  const err = await mongoError(async () => await required.next())
  t.equal(err.code, 47, 'required without pre-images: NoMatchingDocument')

  await h.db.createCollection('cs_images', { changeStreamPreAndPostImages: { enabled: true } })
  const images = h.db.collection<any>('cs_images')
  const cs = await opened(
    images.watch([], { ...AWAIT, fullDocument: 'required', fullDocumentBeforeChange: 'required' })
  )
  await images.insertOne({ _id: 1, v: 1 } as Document)
  await images.updateOne({ _id: 1 } as Document, { $inc: { v: 1 } })
  await images.updateOne({ _id: 1 } as Document, { $inc: { v: 1 } })
  await images.deleteOne({ _id: 1 } as Document)
  const [ins, a, b, del] = await take(cs, 4)
  t.notOk('fullDocumentBeforeChange' in ins, 'an insert has no pre-image field')
  t.same(
    [a.fullDocumentBeforeChange, a.fullDocument],
    [
      { _id: 1, v: 1 },
      { _id: 1, v: 2 }
    ],
    'the images of that write'
  )
  t.same(
    [b.fullDocumentBeforeChange, b.fullDocument],
    [
      { _id: 1, v: 2 },
      { _id: 1, v: 3 }
    ]
  )
  t.same(del.fullDocumentBeforeChange, { _id: 1, v: 3 })
  const bad = await mongoError(
    async () => await h.db.createCollection('cs_bad', { changeStreamPreAndPostImages: true } as Document)
  )
  t.equal(bad.code, 14)
})

t.test('resume: resumeAfter, startAfter, startAtOperationTime', async (t) => {
  const c = h.db.collection<any>('cs_resume')
  const cs = await opened(c.watch([], AWAIT))
  await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as Document[])
  const [first] = await take(cs, 1)
  const after = c.watch([], { ...AWAIT, resumeAfter: first._id })
  t.teardown(async () => {
    await after.close()
  })
  t.same(
    (await take(after, 2)).map((e) => e.documentKey._id),
    [2, 3],
    'resumeAfter: the events after the token, in order'
  )
  const startAfter = c.watch([], { ...AWAIT, startAfter: first._id })
  t.teardown(async () => {
    await startAfter.close()
  })
  t.same(
    (await take(startAfter, 2)).map((e) => e.documentKey._id),
    [2, 3]
  )
  const atTime = c.watch([], { ...AWAIT, startAtOperationTime: first.clusterTime })
  t.teardown(async () => {
    await atTime.close()
  })
  t.same(
    (await take(atTime, 3)).map((e) => e.documentKey._id),
    [1, 2, 3],
    'startAtOperationTime includes events at that time'
  )
  const raw = await h.db.command({
    aggregate: 'cs_resume',
    pipeline: [{ $changeStream: { resumeAfter: first._id } }],
    cursor: {}
  })
  t.equal(raw.cursor.firstBatch.length, 2)
  t.same(raw.cursor.postBatchResumeToken, raw.cursor.firstBatch[1]._id, 'postBatchResumeToken: the last event returned')
  await h.db.command({ killCursors: 'cs_resume', cursors: [raw.cursor.id] })
  const bogus = await mongoError(
    async () =>
      await h.db.command({
        aggregate: 'cs_resume',
        pipeline: [{ $changeStream: { resumeAfter: { _data: 'nope' } } }],
        cursor: {}
      })
  )
  t.equal(bogus.code, 260)
})

t.test('getMore waits up to maxTimeMS and returns a postBatchResumeToken', async (t) => {
  const c = h.db.collection<any>('cs_await')
  const open = await h.db.command({ aggregate: 'cs_await', pipeline: [{ $changeStream: {} }], cursor: {} })
  t.ok(Number(open.cursor.id) > 0, 'the cursor stays open with an empty first batch')
  t.ok(open.cursor.postBatchResumeToken._data, 'first batch has a resume token')
  let began = Date.now()
  const empty = await h.db.command({ getMore: open.cursor.id, collection: 'cs_await', maxTimeMS: 150 })
  t.ok(Date.now() - began >= 140, 'an empty getMore waited')
  t.same(empty.cursor.nextBatch, [])
  t.ok(empty.cursor.postBatchResumeToken._data >= open.cursor.postBatchResumeToken._data, 'the token moves on')
  began = Date.now()
  setTimeout(() => {
    c.insertOne({ _id: 'late' }).catch(() => {})
  }, 50)
  const got = await h.db.command({ getMore: open.cursor.id, collection: 'cs_await', maxTimeMS: 5000 })
  t.ok(Date.now() - began < 2000, 'a write ends the wait')
  t.equal(got.cursor.nextBatch[0].documentKey._id, 'late')
  const notAwait = await mongoError(
    async () => await h.db.command({ getMore: open.cursor.id, collection: 'other', maxTimeMS: 10 })
  )
  t.equal(notAwait.code, 13, 'another namespace is refused')
  await h.db.command({ killCursors: 'cs_await', cursors: [open.cursor.id] })
})

t.test('drop and rename invalidate a collection stream', async (t) => {
  const c = h.db.collection<any>('cs_drop')
  await c.insertOne({ _id: 0 })
  const cs = await opened(c.watch([], AWAIT))
  await c.insertOne({ _id: 1 })
  await c.drop()
  const [, drop, inv] = await take(cs, 3)
  t.equal(drop.operationType, 'drop')
  t.same(drop.ns, { db: 'test', coll: 'cs_drop' })
  t.equal(inv.operationType, 'invalidate')
  t.equal(await cs.tryNext(), null)
  t.ok(cs.closed, 'the stream ends after invalidate')
  const again = await mongoError(
    async () =>
      await h.db.command({ aggregate: 'cs_drop', pipeline: [{ $changeStream: { resumeAfter: inv._id } }], cursor: {} })
  )
  t.equal(again.code, 260, 'resumeAfter an invalidate is refused')
  const after = c.watch([], { ...AWAIT, startAfter: inv._id })
  t.teardown(async () => {
    await after.close()
  })
  await c.insertOne({ _id: 'reborn' })
  t.equal(((await after.next()) as Document).documentKey._id, 'reborn', 'startAfter an invalidate starts a new stream')

  const r = h.db.collection<any>('cs_rename_from')
  await r.insertOne({ _id: 1 })
  const rs = await opened(r.watch([], AWAIT))
  await r.rename('cs_rename_to')
  const [ren, rinv] = await take(rs, 2)
  t.equal(ren.operationType, 'rename')
  t.same(ren.to, { db: 'test', coll: 'cs_rename_to' })
  t.equal(rinv.operationType, 'invalidate')
})

t.test('a database stream and a deployment stream', async (t) => {
  const db = h.client.db('cs_db')
  const dbStream = await opened(db.watch([], AWAIT))
  const all = await opened(h.client.watch([], AWAIT))
  await db.collection<any>('a').insertOne({ _id: 1 })
  await db.collection<any>('b').insertOne({ _id: 2 })
  await h.client.db('cs_elsewhere').collection<any>('c').insertOne({ _id: 3 })
  await db.dropDatabase()
  const events = await take(dbStream, 6)
  t.same(
    events.map((e) => [e.operationType, e.ns?.coll]),
    [
      ['insert', 'a'],
      ['insert', 'b'],
      ['drop', 'a'],
      ['drop', 'b'],
      ['dropDatabase', undefined],
      ['invalidate', undefined]
    ]
  )
  const seen = await take(all, 6)
  t.same(
    seen.map((e) => `${e.operationType}:${e.ns.db}`),
    ['insert:cs_db', 'insert:cs_db', 'insert:cs_elsewhere', 'drop:cs_db', 'drop:cs_db', 'dropDatabase:cs_db'],
    'the deployment stream sees every database and is not invalidated'
  )
  const onAdmin = await mongoError(
    async () => await h.client.db('admin').command({ aggregate: 1, pipeline: [{ $changeStream: {} }], cursor: {} })
  )
  t.equal(onAdmin.code, 73)
  const clusterElsewhere = await mongoError(
    async () =>
      await h.db.command({ aggregate: 1, pipeline: [{ $changeStream: { allChangesForCluster: true } }], cursor: {} })
  )
  t.equal(clusterElsewhere.code, 73)
})

t.test('the pipeline after $changeStream', async (t) => {
  const c = h.db.collection<any>('cs_pipe')
  const cs = await opened(
    c.watch(
      [
        { $match: { operationType: 'insert', 'fullDocument.keep': true } },
        { $project: { operationType: 1, 'fullDocument.n': 1 } },
        { $addFields: { tag: { $concat: ['n', { $toString: '$fullDocument.n' }] } } }
      ],
      AWAIT
    )
  )
  await c.insertMany([
    { n: 1, keep: false },
    { n: 2, keep: true }
  ])
  await c.updateMany({}, { $set: { keep: true } })
  await c.insertOne({ n: 3, keep: true })
  const [a, b] = await take(cs, 2)
  t.same([a.fullDocument, a.tag, b.fullDocument, b.tag], [{ n: 2 }, 'n2', { n: 3 }, 'n3'])
  t.notOk('ns' in a, 'projected away')
  const group = await mongoError(
    async () =>
      await h.db.command({
        aggregate: 'cs_pipe',
        pipeline: [{ $changeStream: {} }, { $group: { _id: null } }],
        cursor: {}
      })
  )
  t.equal(group.code, 20, '$group is not permitted')
  const unknown = await mongoError(
    async () =>
      await h.db.command({ aggregate: 'cs_pipe', pipeline: [{ $changeStream: {} }, { $bogus: {} }], cursor: {} })
  )
  t.equal(unknown.code, 40324, 'an unknown stage is unknown first')
  const idChanged = c.watch([{ $project: { _id: 0 } }], AWAIT)
  t.teardown(async () => {
    await idChanged.close()
  })
  await idChanged.tryNext()
  await c.insertOne({ n: 4 })
  t.equal((await mongoError(async () => await idChanged.next())).code, 280, 'changing the resume token is fatal')
  const notFirst = await mongoError(
    async () =>
      await h.db.command({ aggregate: 'cs_pipe', pipeline: [{ $match: {} }, { $changeStream: {} }], cursor: {} })
  )
  t.equal(notFirst.code, 40602)
})

t.test('transactions: events at the commit, in commit order; aborted ones never', async (t) => {
  const c = await h.db.createCollection<any>('cs_txn')
  const cs = await opened(c.watch([], AWAIT))
  const s1 = h.client.startSession()
  const s2 = h.client.startSession()
  t.teardown(async () => {
    await s1.endSession()
    await s2.endSession()
  })
  s1.startTransaction()
  s2.startTransaction()
  await c.insertOne({ _id: 't1' }, { session: s1 })
  await c.insertOne({ _id: 't2' }, { session: s2 })
  await c.updateOne({ _id: 't1' }, { $set: { x: 1 } }, { session: s1 })
  t.equal(await cs.tryNext(), null, 'nothing before a commit')
  await s2.commitTransaction()
  await s1.commitTransaction()
  const [e2, e1a, e1b] = await take(cs, 3)
  t.same([e2.documentKey._id, e1a.documentKey._id, e1b.operationType], ['t2', 't1', 'update'], 'in commit order')
  t.ok(e1a.txnNumber !== undefined && e1a.lsid !== undefined, 'a transaction event carries lsid and txnNumber')
  t.ok(e1a.clusterTime.equals(e1b.clusterTime), 'one commit, one time')
  s1.startTransaction()
  await c.insertOne({ _id: 'never' }, { session: s1 })
  await s1.abortTransaction()
  await c.insertOne({ _id: 'after' })
  t.equal(((await cs.next()) as Document).documentKey._id, 'after', 'the aborted write left no event')
})

t.test('collMod turns pre- and post-images on and off (and does nothing else)', async (t) => {
  const c = await h.db.createCollection<any>('cs_collmod')
  const cs = await opened(c.watch([], { ...AWAIT, fullDocumentBeforeChange: 'whenAvailable' }))
  await c.insertOne({ _id: 1, v: 1 })
  await h.db.command({ collMod: 'cs_collmod', changeStreamPreAndPostImages: { enabled: true } })
  await c.updateOne({ _id: 1 }, { $set: { v: 2 } })
  await h.db.command({ collMod: 'cs_collmod', changeStreamPreAndPostImages: { enabled: false } })
  await c.updateOne({ _id: 1 }, { $set: { v: 3 } })
  const [, on, off] = await take(cs, 3)
  t.same([on.fullDocumentBeforeChange, off.fullDocumentBeforeChange], [{ _id: 1, v: 1 }, null])
  t.equal((await mongoError(async () => await h.db.command({ collMod: 'cs_collmod', validator: {} }))).code, 238)
  t.equal(
    (
      await mongoError(
        async () => await h.db.command({ collMod: 'cs_none', changeStreamPreAndPostImages: { enabled: true } })
      )
    ).code,
    26
  )
  t.equal(
    (await mongoError(async () => await h.db.command({ collMod: 'cs_collmod', changeStreamPreAndPostImages: 1 }))).code,
    14
  )
})

t.test('failGetMoreAfterCursorCheckout: a resumable error is labelled and the driver resumes', async (t) => {
  const fp = await setup(t, { enableTestCommands: true })
  const c = fp.db.collection<any>('fp')
  const cs = c.watch([], AWAIT)
  t.teardown(async () => {
    await cs.close()
  })
  await cs.tryNext()
  await c.insertOne({ _id: 1 })
  t.equal(((await cs.next()) as Document).documentKey._id, 1)
  const admin = fp.client.db('admin')
  await admin.command({
    configureFailPoint: 'failGetMoreAfterCursorCheckout',
    mode: { times: 1 },
    data: { errorCode: 6 }
  })
  await c.insertOne({ _id: 2 })
  t.equal(((await cs.next()) as Document).documentKey._id, 2, 'resumed after HostUnreachable, nothing lost or repeated')
  await admin.command({
    configureFailPoint: 'failGetMoreAfterCursorCheckout',
    mode: { times: 1 },
    data: { errorCode: 2 }
  })
  const err = await mongoError(async () => await cs.next())
  t.same([err.code, err.errorLabels ?? []], [2, []], 'a non-resumable code is not labelled')
  const raw = await fp.db.command({
    aggregate: 'fp',
    pipeline: [{ $changeStream: {} }, { $project: { _id: 0 } }],
    cursor: {}
  })
  await c.insertOne({ _id: 3 })
  const fatal = await mongoError(async () => await fp.db.command({ getMore: raw.cursor.id, collection: 'fp' }))
  t.same([fatal.code, fatal.errorLabels], [280, ['NonResumableChangeStreamError']])
})

t.test('spec checks', async (t) => {
  const run = async (stage: Document): Promise<number | undefined> =>
    (
      await mongoError(
        async () => await h.db.command({ aggregate: 'x', pipeline: [{ $changeStream: stage }], cursor: {} })
      )
    ).code
  t.equal(await run({ bogus: 1 }), 40415)
  t.equal(await run({ fullDocument: 'sometimes' }), 2)
  t.equal(await run({ fullDocument: 1 }), 14)
  t.equal(await run({ startAtOperationTime: 5 }), 14)
  t.equal(await run({ resumeAfter: { _data: 'x' }, startAfter: { _data: 'x' } }), 50865)
  t.equal(await run({ resumeAfter: { _data: 'x' }, startAtOperationTime: new Timestamp({ t: 1, i: 1 }) }), 40674)
  t.equal(
    (await mongoError(async () => await h.db.command({ aggregate: 'x', pipeline: [{ $changeStream: 1 }], cursor: {} })))
      .code,
    50808
  )
  t.equal(
    (
      await mongoError(
        async () => await h.db.command({ aggregate: 'system.x', pipeline: [{ $changeStream: {} }], cursor: {} })
      )
    ).code,
    73
  )
  t.equal(
    (await mongoError(async () => await h.db.command({ aggregate: 'x', pipeline: [{ $changeStream: {} }] }))).code,
    9
  )
  t.equal(
    (
      await mongoError(
        async () => await h.db.command({ aggregate: 'x', pipeline: [{ $changeStream: {} }], explain: true })
      )
    ).code,
    238
  )
})

t.test('a capped history: resuming before it is ChangeStreamHistoryLost (286)', async (t) => {
  const small = await startDevDb({ port: 0, changeStreamHistoryBytes: 4096 })
  const client = new MongoClient(small.uri)
  t.teardown(async () => {
    await client.close()
    await small.stop()
  })
  const c = client.db('test').collection<any>('cap')
  const cs = c.watch([], AWAIT)
  await cs.tryNext()
  await c.insertOne({ _id: 0 })
  const first = await cs.next()
  await cs.close()
  await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i + 1, pad: 'x'.repeat(200) })))
  const lost = c.watch([], { ...AWAIT, resumeAfter: first._id })
  t.equal((await mongoError(async () => await lost.next())).code, 286)
  await lost.close()
  const lostTime = c.watch([], { ...AWAIT, startAtOperationTime: first.clusterTime })
  t.equal((await mongoError(async () => await lostTime.next())).code, 286)
  await lostTime.close()
  // many evictions at once (the kept window is compacted): a recent token still resumes
  await c.insertMany(Array.from({ length: 1500 }, (_, i) => ({ _id: `m${i}` })))
  const recent = c.watch([], AWAIT)
  await recent.tryNext()
  await c.insertOne({ _id: 'x1' })
  const x1 = (await recent.next()) as Document
  await recent.close()
  await c.insertOne({ _id: 'x2' })
  const resumed = c.watch([], { ...AWAIT, resumeAfter: x1._id })
  t.equal(((await resumed.next()) as Document).documentKey._id, 'x2')
  await resumed.close()
})

t.test('durable mode: events after the journal write; a token from before a restart is history lost', async (t) => {
  const dir = await tempDir(t)
  let server = await startDevDb({ port: 0, dbPath: dir })
  let client = new MongoClient(server.uri)
  const c = client.db('test').collection<any>('dur')
  const cs = c.watch([], AWAIT)
  await cs.tryNext()
  await c.insertOne({ _id: 1 })
  const ev = (await cs.next()) as Document
  t.equal(ev.documentKey._id, 1)
  await cs.close()
  await client.close()
  await server.stop()
  server = await startDevDb({ port: 0, dbPath: dir })
  client = new MongoClient(server.uri)
  t.teardown(async () => {
    await client.close()
    await server.stop()
  })
  const old = client
    .db('test')
    .collection<any>('dur')
    .watch([], { ...AWAIT, resumeAfter: ev._id })
  t.equal((await mongoError(async () => await old.next())).code, 286)
  await old.close()
})

t.test('a write undone by a failed journal write leaves no event', async (t) => {
  const dir = await tempDir(t)
  let free = Infinity
  const server = await startDevDb({ port: 0, dbPath: dir, diskFree: () => free })
  const client = new MongoClient(server.uri, { retryWrites: false })
  t.teardown(async () => {
    await client.close()
    await server.stop()
  })
  const c = client.db('test').collection<any>('undone')
  await c.insertOne({ _id: 0 })
  const cs = c.watch([], AWAIT)
  await cs.tryNext()
  free = 0
  await mongoError(async () => await c.insertOne({ _id: 'lost', pad: 'x'.repeat(100) }))
  free = Infinity
  await c.insertOne({ _id: 'kept' })
  t.equal(((await cs.next()) as Document).documentKey._id, 'kept', 'the undone insert never appeared')
  await cs.close()
})

t.test('a standalone refuses change streams as a standalone mongod does', async (t) => {
  const h2 = await setup(t, { replSet: false })
  const err = await mongoError(
    async () => await h2.db.command({ aggregate: 'x', pipeline: [{ $changeStream: {} }], cursor: {} })
  )
  t.equal(err.code, 40573)
})

t.test('TTL deletes are events', async (t) => {
  const small = await startDevDb({ port: 0, ttlMonitorSleepSecs: 1 })
  const client = new MongoClient(small.uri)
  t.teardown(async () => {
    await client.close()
    await small.stop()
  })
  const c = client.db('test').collection<any>('ttl')
  await c.createIndex({ at: 1 }, { expireAfterSeconds: 0 })
  const cs = c.watch([], { maxAwaitTimeMS: 3000 })
  await cs.tryNext()
  await c.insertOne({ _id: 'gone', at: new Date(0) })
  const [ins, del] = await take(cs, 2)
  t.same([ins.operationType, del.operationType, del.documentKey._id], ['insert', 'delete', 'gone'])
  t.ok(del.clusterTime.greaterThan(ins.clusterTime))
  await cs.close()
})

export type { ChangeStreamDocument }
