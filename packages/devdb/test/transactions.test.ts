/**
 * Single-node replica-set mode (the default) and multi-document transactions through the official
 * driver: snapshot reads, isolation, commit/abort, WriteConflict with TransientTransactionError,
 * unique indexes at commit, withTransaction's retry, retryable writes, all-or-nothing after a crash.
 */
import t from 'tap'
import * as path from 'node:path'
import { MongoClient, MongoServerError, type ClientSession, type CommandStartedEvent } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'
import { startDevDb } from '../src/index.js'
import { openDurableStore } from '../src/storage/durable-store.js'
import { crashCopy, docsOf, tempDir } from './fixtures/durability/store-helpers.js'

const h = await setup(t)
const other = new MongoClient(h.server.uri) // a second client: what everyone else sees
await other.connect()
t.teardown(async () => {
  await other.close()
})
const accounts = h.db.collection<{ _id: string; balance: number; email?: string }>('accounts')
const audit = h.db.collection('audit')
const seen = other.db('test').collection<{ _id: string; balance: number }>('accounts')

const reset = async (): Promise<void> => {
  await accounts.deleteMany({})
  await audit.deleteMany({})
  await accounts.insertMany([
    { _id: 'a', balance: 100 },
    { _id: 'b', balance: 0 }
  ])
}

const labels = (e: unknown): string[] => (e instanceof MongoServerError ? e.errorLabels : [])

t.test('hello answers as the primary of a one-member replica set', async (t) => {
  const hello = await h.db.admin().command({ hello: 1 })
  t.equal(hello.setName, 'rs0')
  t.equal(hello.isWritablePrimary, true)
  t.equal(hello.secondary, false)
  t.same(hello.hosts, [`127.0.0.1:${h.server.port}`])
  t.equal(hello.primary, hello.me)
})

t.test('withTransaction commits every write at once; others see none of it before', async (t) => {
  await reset()
  const session = h.client.startSession()
  let midway: unknown[] = []
  await session.withTransaction(async () => {
    await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -30 } }, { session })
    await accounts.updateOne({ _id: 'b' }, { $inc: { balance: 30 } }, { session })
    await audit.insertOne({ _id: 'move-1' as never, amount: 30 }, { session })
    // inside: own writes; outside: nothing yet
    t.same(await accounts.find({}, { session }).toArray(), [
      { _id: 'a', balance: 70 },
      { _id: 'b', balance: 30 }
    ])
    midway = await seen.find().toArray()
  })
  await session.endSession()
  t.same(midway, [
    { _id: 'a', balance: 100 },
    { _id: 'b', balance: 0 }
  ])
  t.same(await seen.find().toArray(), [
    { _id: 'a', balance: 70 },
    { _id: 'b', balance: 30 }
  ])
  t.same(await audit.find().toArray(), [{ _id: 'move-1', amount: 30 }])
})

t.test('reads inside a transaction see its snapshot, not later commits', async (t) => {
  await reset()
  const session = h.client.startSession()
  session.startTransaction()
  t.equal((await accounts.findOne({ _id: 'a' }, { session }))?.balance, 100)
  await seen.updateOne({ _id: 'a' }, { $set: { balance: 1 } })
  await seen.insertOne({ _id: 'c', balance: 5 })
  t.equal((await accounts.findOne({ _id: 'a' }, { session }))?.balance, 100)
  t.equal(await accounts.countDocuments({}, { session }), 2)
  t.same(await accounts.aggregate([{ $group: { _id: null, total: { $sum: '$balance' } } }], { session }).toArray(), [
    { _id: null, total: 100 }
  ])
  await session.abortTransaction()
  await session.endSession()
})

t.test('abort discards every write', async (t) => {
  await reset()
  const session = h.client.startSession()
  session.startTransaction()
  await accounts.insertOne({ _id: 'x', balance: 1 }, { session })
  await accounts.deleteOne({ _id: 'a' }, { session })
  await h.db.collection('brand-new').insertOne({ y: 1 }, { session })
  await session.abortTransaction()
  await session.endSession()
  t.same(
    (await seen.find().toArray()).map((d) => d._id),
    ['a', 'b']
  )
  t.notOk((await h.db.listCollections().toArray()).some((c) => c.name === 'brand-new'))
})

t.test(
  'a document written by another open transaction: WriteConflict, TransientTransactionError, transaction aborted',
  async (t) => {
    await reset()
    const s1 = h.client.startSession()
    const s2 = h.client.startSession()
    s1.startTransaction()
    s2.startTransaction()
    await accounts.updateOne({ _id: 'a' }, { $inc: { balance: 1 } }, { session: s1 })
    const e = await mongoError(
      async () => await accounts.updateOne({ _id: 'a' }, { $inc: { balance: 2 } }, { session: s2 })
    )
    t.equal(e.code, 112)
    t.equal(e.codeName, 'WriteConflict')
    t.ok(labels(e).includes('TransientTransactionError'))
    const after = await mongoError(async () => await accounts.findOne({ _id: 'b' }, { session: s2 }))
    t.equal(after.code, 251, 'the conflicting transaction was aborted')
    t.ok(labels(after).includes('TransientTransactionError'))
    await s2.abortTransaction().catch(() => {})
    await s1.commitTransaction()
    await s1.endSession()
    await s2.endSession()
    t.equal((await seen.findOne({ _id: 'a' }))?.balance, 101)
  }
)

t.test('a document changed since the snapshot: WriteConflict at the write or at commit', async (t) => {
  await reset()
  const s = h.client.startSession()
  s.startTransaction()
  await accounts.findOne({ _id: 'b' }, { session: s })
  await seen.updateOne({ _id: 'a' }, { $set: { balance: 7 } })
  t.equal(
    (await mongoError(async () => await accounts.updateOne({ _id: 'a' }, { $inc: { balance: 1 } }, { session: s })))
      .code,
    112
  )
  await s.abortTransaction().catch(() => {})

  s.startTransaction()
  await accounts.updateOne({ _id: 'b' }, { $inc: { balance: 1 } }, { session: s })
  await seen.updateOne({ _id: 'b' }, { $set: { balance: 50 } }) // a plain write wins (see README)
  const e = await mongoError(async () => await s.commitTransaction())
  t.equal(e.code, 112)
  t.ok(labels(e).includes('TransientTransactionError'))
  await s.endSession()
  t.same(await seen.find().toArray(), [
    { _id: 'a', balance: 7 },
    { _id: 'b', balance: 50 }
  ])
})

t.test("the driver's withTransaction retries a transient conflict", async (t) => {
  await reset()
  const session = h.client.startSession()
  let attempts = 0
  await session.withTransaction(async () => {
    attempts++
    await accounts.updateOne({ _id: 'a' }, { $inc: { balance: 10 } }, { session })
    if (attempts === 1) await seen.updateOne({ _id: 'a' }, { $inc: { balance: 1 } }) // makes this attempt's commit conflict
  })
  await session.endSession()
  t.equal(attempts, 2)
  t.equal((await seen.findOne({ _id: 'a' }))?.balance, 111)
})

t.test('unique indexes are checked at commit against what was committed meanwhile', async (t) => {
  await reset()
  await accounts.createIndex({ email: 1 }, { unique: true, sparse: true })
  const s = h.client.startSession()
  s.startTransaction()
  await accounts.insertOne({ _id: 'c', balance: 0, email: 'e@x.io' }, { session: s })
  await accounts.updateOne({ _id: 'b' }, { $set: { balance: 9 } }, { session: s })
  await seen.insertOne({ _id: 'd', balance: 0, email: 'e@x.io' } as never)
  const e = await mongoError(async () => await s.commitTransaction())
  t.equal(e.code, 11000)
  await s.endSession()
  t.same(await seen.find().toArray(), [
    { _id: 'a', balance: 100 },
    { _id: 'b', balance: 0 },
    { _id: 'd', balance: 0, email: 'e@x.io' }
  ])
  await accounts.dropIndex('email_1')
})

t.test('a failing statement aborts the transaction; DDL is refused inside one', async (t) => {
  await reset()
  const s = h.client.startSession()
  s.startTransaction()
  const dup = await mongoError(async () => await accounts.insertOne({ _id: 'a', balance: 0 }, { session: s }))
  t.equal(dup.code, 11000)
  t.equal((await mongoError(async () => await accounts.findOne({}, { session: s }))).code, 251)
  await s.abortTransaction().catch(() => {})
  s.startTransaction()
  const ddl = await mongoError(async () => await h.db.command({ drop: 'audit' }, { session: s }))
  t.equal(ddl.code, 263)
  t.equal(ddl.message, "Cannot run 'drop' in a multi-document transaction.")
  await s.abortTransaction().catch(() => {})
  await s.endSession()
})

t.test(
  'create and createIndexes inside a transaction: seen by it, installed by its commit (mongod 4.4+)',
  async (t) => {
    await h.db
      .collection('made')
      .drop()
      .catch(() => {})
    const s = h.client.startSession()
    s.startTransaction()
    await h.db.createCollection('made', { session: s })
    await h.db.collection('made').createIndex({ x: 1 }, { name: 'x_1', unique: true, session: s })
    await h.db.collection('made').insertOne({ _id: 1 as never, x: 1 }, { session: s })
    t.equal((await h.db.listCollections({ name: 'made' }).toArray()).length, 0, 'invisible before the commit')
    await s.commitTransaction()
    t.same(
      (await h.db.collection('made').listIndexes().toArray()).map((i) => i.name),
      ['_id_', 'x_1']
    )
    t.equal(
      (await mongoError(async () => await h.db.collection('made').insertOne({ x: 1 }))).code,
      11000,
      'the unique index is built'
    )
    // an index on a collection that existed before the transaction stays refused, as in mongod
    s.startTransaction()
    const e = await mongoError(async () => await h.db.collection('made').createIndex({ y: 1 }, { session: s }))
    t.equal(e.code, 263)
    t.equal(e.message, 'Cannot create new indexes on existing collection test.made in a multi-document transaction.')
    await s.abortTransaction().catch(() => {})
    // an aborted transaction leaves no collection behind
    s.startTransaction()
    await h.db.collection('made2').createIndex({ z: 1 }, { session: s })
    await s.abortTransaction()
    t.equal((await h.db.listCollections({ name: 'made2' }).toArray()).length, 0)
    await s.endSession()
  }
)

t.test('protocol errors: unknown transaction number, commit and abort rules', async (t) => {
  await reset()
  // a client of its own: its first session is new to the server (the driver reuses pooled session ids)
  const fresh = new MongoClient(h.server.uri)
  await fresh.connect()
  t.teardown(async () => {
    await fresh.close()
  })
  const session = fresh.startSession()
  const run = async (cmd: Record<string, unknown>, db = 'test'): Promise<unknown> =>
    await fresh.db(db).command(cmd, { session })
  const e1 = await mongoError(async () => await run({ find: 'accounts', txnNumber: 5n, autocommit: false }))
  t.equal(e1.code, 251)
  await run({ find: 'accounts', txnNumber: 6n, autocommit: false, startTransaction: true })
  t.equal(
    (
      await mongoError(
        async () => await run({ find: 'accounts', txnNumber: 6n, autocommit: false, startTransaction: true })
      )
    ).code,
    117
  )
  t.equal(
    (
      await mongoError(
        async () => await run({ find: 'accounts', txnNumber: 4n, autocommit: false, startTransaction: true })
      )
    ).code,
    225
  )
  t.equal((await mongoError(async () => await run({ find: 'accounts', txnNumber: 6n, autocommit: true }))).code, 72)
  t.equal(
    (await mongoError(async () => await run({ commitTransaction: 1, txnNumber: 6n, autocommit: false }))).code,
    13,
    'commit runs on admin'
  )
  // (the driver sets commit's and abort's txnNumber itself: those are tested through its API)
  const s1 = h.client.startSession()
  s1.startTransaction()
  await accounts.updateOne({ _id: 'b' }, { $set: { balance: 1 } }, { session: s1 })
  await s1.commitTransaction()
  await s1.commitTransaction() // the driver re-sends commitTransaction: a retried commit succeeds
  await s1.endSession()
  t.equal((await seen.findOne({ _id: 'b' }))?.balance, 1)
  const s2 = h.client.startSession()
  s2.startTransaction()
  await accounts.insertOne({ _id: 'z', balance: 0 }, { session: s2 })
  await h.db.admin().command({ endSessions: [s2.id] }) // ends the session: its open transaction is aborted
  t.equal((await mongoError(async () => await s2.commitTransaction())).code, 251)
  await s2.endSession()
  t.equal(await seen.findOne({ _id: 'z' }), null)
})

t.test(
  'a transaction its client abandoned holds its writes until transactionLifetimeLimitSeconds, settable at run time',
  async (t) => {
    await reset()
    const admin = h.client.db('admin')
    t.equal(
      (await admin.command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 })).transactionLifetimeLimitSeconds,
      60,
      "mongod's default"
    )
    const abandoned = h.client.startSession()
    abandoned.startTransaction()
    await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -1 } }, { session: abandoned })
    const blocked = await mongoError(async () => {
      const s = other.startSession()
      try {
        s.startTransaction()
        await other
          .db('test')
          .collection<{ _id: string; balance: number }>('accounts')
          .updateOne({ _id: 'a' }, { $inc: { balance: 1 } }, { session: s })
      } finally {
        await s.endSession()
      }
    })
    t.equal(blocked.code, 112, 'WriteConflict while the abandoned transaction is open')
    t.equal((await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 1 })).was, 60)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const s = other.startSession()
    s.startTransaction()
    await other
      .db('test')
      .collection<{ _id: string; balance: number }>('accounts')
      .updateOne({ _id: 'a' }, { $inc: { balance: 1 } }, { session: s })
    await s.commitTransaction()
    await s.endSession()
    t.equal(
      (await seen.findOne({ _id: 'a' }))?.balance,
      101,
      'past the lifetime the abandoned one is aborted and the write lands'
    )
    t.equal(
      (await mongoError(async () => await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 0 }))).code,
      72
    )
    await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 60 })
    await abandoned.endSession().catch(() => {})
  }
)

t.test('serverStatus counts transactions as mongod names them', async (t) => {
  const status = async (): Promise<Record<string, number>> =>
    (await h.db.admin().command({ serverStatus: 1 })).transactions
  const before = await status()
  const s = h.client.startSession()
  s.startTransaction()
  await accounts.findOne({}, { session: s })
  t.equal((await status()).currentOpen, before.currentOpen + 1)
  await s.commitTransaction()
  s.startTransaction()
  await accounts.findOne({}, { session: s })
  await s.abortTransaction()
  await s.endSession()
  const after = await status()
  t.same(after, {
    currentOpen: before.currentOpen,
    totalStarted: before.totalStarted + 2,
    totalCommitted: before.totalCommitted + 1,
    totalAborted: before.totalAborted + 1
  })
})

t.test('retryable writes: the driver sends txnNumber and devdb accepts it', async (t) => {
  const started: CommandStartedEvent[] = []
  const c = new MongoClient(h.server.uri, { monitorCommands: true })
  c.on('commandStarted', (e) => {
    started.push(e)
  })
  await c.connect()
  await c.db('test').collection('retry').insertOne({ n: 1 })
  await c
    .db('test')
    .collection('retry')
    .findOneAndUpdate({ n: 1 }, { $set: { n: 2 } })
  await c.close()
  t.ok(
    started
      .filter((e) => e.commandName === 'insert' || e.commandName === 'findAndModify')
      .every((e) => e.command.txnNumber !== undefined)
  )
  t.equal(await h.db.collection('retry').countDocuments({ n: 2 }), 1)
})

t.test('a crash before commit loses the whole transaction; after it, keeps all of it', async (t) => {
  const dbPath = await tempDir(t, 'devdb-txn-crash-')
  const server = await startDevDb({ dbPath })
  const client = new MongoClient(server.uri)
  await client.connect()
  const db = client.db('app')
  await db.collection('records').insertOne({ _id: 'r0' as never })
  const session: ClientSession = client.startSession()
  session.startTransaction()
  await db.collection('records').insertOne({ _id: 'r1' as never }, { session })
  await db.collection('audit').insertOne({ _id: 'a1' as never, of: 'r1' }, { session })
  const crash = async (): Promise<{ records?: unknown[]; audit?: unknown[]; replayed: number }> => {
    const copy = path.join(await tempDir(t, 'devdb-txn-copy-'), 'db')
    await crashCopy(dbPath, copy)
    const { store, state } = await openDurableStore(copy)
    await store.close()
    return {
      records: docsOf(state, 'records')?.map((d) => d._id),
      audit: docsOf(state, 'audit')?.map((d) => d._id),
      replayed: store.recovery.recordsReplayed
    }
  }
  const before = await crash()
  t.same(before.records, ['r0'])
  t.equal(before.audit, undefined)
  await session.commitTransaction()
  await session.endSession()
  const after = await crash()
  t.same(after.records, ['r0', 'r1'])
  t.same(after.audit, ['a1'])
  t.equal(after.replayed, before.replayed + 1, 'the commit is one journal record')
  await client.close()
  await server.stop()
})

t.test('standalone mode refuses transactions like a standalone mongod', async (t) => {
  const s = await setup(t, { replSet: false })
  const hello = await s.db.admin().command({ hello: 1 })
  t.equal(hello.setName, undefined)
  const session = s.client.startSession()
  session.startTransaction()
  const e = await mongoError(async () => await s.db.collection('x').insertOne({ a: 1 }, { session }))
  t.match(e.message, /does not support retryable writes/)
  await session.abortTransaction().catch(() => {})
  await session.endSession()
})
