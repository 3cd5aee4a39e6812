/**
 * A write whose journal append fails (disk full, simulated in the storage layer by `diskFree`,
 * which lets a batch be half-written before ENOSPC) is answered with an error, undone in memory,
 * never persisted — not by a later snapshot either — and writes resume once the disk has room.
 */
import t from 'tap'
import * as path from 'node:path'
import { MongoClient } from 'mongodb'
import { startDevDb } from '../src/index.js'
import { openDurableStore } from '../src/storage/durable-store.js'
import { crashCopy, docsOf, tempDir } from './fixtures/durability/store-helpers.js'
import { mongoError } from './fixtures/devdb-harness.js'

let free = Infinity
const dbPath = await tempDir(t, 'devdb-enospc-')
const server = await startDevDb({ dbPath, diskFree: () => free, freezeDocuments: true, snapshotIntervalMs: 3_600_000 })
const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 })
await client.connect()
t.teardown(async () => {
  await client.close()
  await server.stop()
})
const db = client.db('app')
const items = db.collection('items')
await items.createIndex({ email: 1 }, { unique: true })
await items.insertOne({ _id: 'a' as never, email: 'a@x.io', n: 1 })
const storage = async (): Promise<Record<string, unknown>> =>
  (await db.admin().command({ serverStatus: 1 })).devdb.storage

t.test('a failed insert is answered with an error and is neither visible nor persisted', async (t) => {
  free = 10 // the record is cut after 10 bytes
  const err = await mongoError(async () => await items.insertOne({ _id: 'b' as never, email: 'b@x.io' }))
  t.equal(err.code, 1)
  t.match(err.message, /ENOSPC/)
  t.equal(await items.findOne({ _id: 'b' as never }), null)
  t.equal(await items.countDocuments(), 1)
  // the unique index was undone too: the same email can be written once the disk has room
  t.same(await storage(), {
    durable: true,
    writable: false,
    lastWriteError: 'devdb storage: journal write failed: ENOSPC: no space left on device, write'
  })
})

t.test('concurrent writes sharing the failed batch are all undone', async (t) => {
  free = 0
  const results = await Promise.allSettled([
    items.insertOne({ _id: 'c' as never, email: 'c@x.io' }),
    items.updateOne({ _id: 'a' as never }, { $set: { n: 2, email: 'changed@x.io' } }),
    items.deleteOne({ _id: 'a' as never }),
    db.collection('fresh').insertOne({ x: 1 }),
    items.createIndex({ n: 1 }),
    db.collection('items').rename('renamed')
  ])
  t.same(
    results.map((r) => r.status),
    ['rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']
  )
  t.same(await items.find().toArray(), [{ _id: 'a', email: 'a@x.io', n: 1 }])
  t.same(
    (await db.listCollections().toArray()).map((c) => c.name),
    ['items']
  )
  t.same(
    (await items.indexes()).map((i) => i.name),
    ['_id_', 'email_1']
  )
  t.same(await items.find({ email: 'changed@x.io' }).toArray(), [], 'the index no longer holds the undone key')
})

t.test('writes resume when the disk has room again; the journal holds no torn record', async (t) => {
  free = Infinity
  await items.insertOne({ _id: 'b' as never, email: 'b@x.io' })
  await items.updateOne({ _id: 'a' as never }, { $set: { n: 3 } })
  t.same(await storage(), { durable: true, writable: true })
  // What a crash right now would leave: recovery sees every acknowledged write and nothing else.
  const copy = path.join(await tempDir(t, 'devdb-enospc-copy-'), 'db')
  await crashCopy(dbPath, copy)
  const { store, state } = await openDurableStore(copy)
  t.same(docsOf(state, 'items'), [
    { _id: 'a', email: 'a@x.io', n: 3 },
    { _id: 'b', email: 'b@x.io' }
  ])
  t.equal(store.recovery.truncatedBytes ?? 0, 0)
  await store.close()
})

t.test('a transaction whose commit cannot be journaled is undone and stays uncommitted', async (t) => {
  const session = client.startSession()
  session.startTransaction()
  await items.insertOne({ _id: 't1' as never, email: 't1@x.io' }, { session })
  await db.collection('txlog').insertOne({ of: 't1' }, { session })
  free = 0
  t.equal((await mongoError(async () => await session.commitTransaction())).code, 1)
  free = Infinity
  t.equal(await items.findOne({ _id: 't1' as never }), null)
  t.equal((await db.listCollections({ name: 'txlog' }).toArray()).length, 0)
  t.equal(
    (await mongoError(async () => await session.commitTransaction())).code,
    251,
    'a retried commit does not answer ok'
  )
  await session.endSession()
})

t.test('a snapshot taken while a failing write is in flight does not keep it', async (t) => {
  const dir = await tempDir(t, 'devdb-enospc-snap-')
  let storeFree = Infinity
  const { store } = await openDurableStore(dir, { diskFree: () => storeFree })
  store.onWriteFailure = () => {} // the engine would undo the write in memory here
  const doc = (id: string): Record<string, unknown> => ({ _id: id })
  await store.commit([{ t: 'put', db: 'app', coll: 'items', doc: doc('a') }])
  storeFree = 0
  const failing = store.commit([{ t: 'put', db: 'app', coll: 'items', doc: doc('ghost') }])
  // The engine's state at this moment holds the write that is still waiting for the disk.
  const snapshot = store.snapshot(() => ({
    collections: [{ db: 'app', name: 'items', options: {}, indexes: [], docs: [doc('a'), doc('ghost')] }]
  }))
  await t.rejects(failing, /ENOSPC/)
  await t.rejects(snapshot, /snapshot abandoned/)
  storeFree = Infinity
  await store.commit([{ t: 'put', db: 'app', coll: 'items', doc: doc('b') }])
  t.equal(store.writable, true)
  await store.close()
  const reopened = await openDurableStore(dir)
  t.same(docsOf(reopened.state, 'items'), [doc('a'), doc('b')])
  await reopened.store.close()
})

t.test('without a failure handler the store refuses writes after a failure', async (t) => {
  const dir = await tempDir(t, 'devdb-enospc-nohandler-')
  let storeFree = 0
  const { store } = await openDurableStore(dir, { diskFree: () => storeFree })
  await t.rejects(store.commit([{ t: 'put', db: 'app', coll: 'c', doc: { _id: 1 } }]), /ENOSPC/)
  storeFree = Infinity
  await t.rejects(store.commit([{ t: 'put', db: 'app', coll: 'c', doc: { _id: 2 } }]), /ENOSPC/)
  t.equal(store.writable, false)
  t.equal(store.stats.failures, 1)
  await store.close()
})

t.test('stop() after a failed write still snapshots and releases the dbPath', async (t) => {
  free = 0
  await t.rejects(items.insertOne({ _id: 'late' as never, email: 'late@x.io' }))
  free = Infinity
  await client.close()
  await server.stop()
  const { store, state } = await openDurableStore(dbPath)
  t.same(
    docsOf(state, 'items')?.map((d) => d._id),
    ['a', 'b']
  )
  await store.close()
})
