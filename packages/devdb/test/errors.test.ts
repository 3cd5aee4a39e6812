import t from 'tap'
import { Long } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t, { replSet: false }) // a standalone: no transactions
const c = h.db.collection('e')
await c.insertOne({ _id: 1 as never, a: 1 })

t.test('unknown command', async (t) => {
  const e = await mongoError(async () => await h.db.command({ frobnicate: 1 }))
  t.equal(e.code, 59)
  t.equal(e.codeName, 'CommandNotFound')
  t.equal(e.message, "no such command: 'frobnicate'")
})

t.test('transactions are refused like a standalone mongod', async (t) => {
  const session = h.client.startSession()
  try {
    session.startTransaction()
    const e = await mongoError(async () => await c.insertOne({ a: 2 }, { session }))
    // The driver rewrites mongod's code-20 reply into this message, exactly as against a real standalone.
    t.equal(
      e.message,
      'This MongoDB deployment does not support retryable writes. Please add retryWrites=false to your connection string.'
    )
  } finally {
    await session.abortTransaction().catch(() => {})
    await session.endSession()
  }
  t.equal(await c.countDocuments({ a: 2 }), 0)
  const raw = await mongoError(
    async () =>
      await h.db.command({
        find: 'e',
        filter: {},
        txnNumber: Long.fromNumber(1),
        autocommit: false,
        startTransaction: true
      })
  )
  t.equal(raw.code, 20)
  t.equal(raw.codeName, 'IllegalOperation')
})

t.test('sessions without transactions work', async (t) => {
  const session = h.client.startSession()
  await c.insertOne({ a: 3 }, { session })
  t.equal(await c.countDocuments({ a: 3 }, { session }), 1)
  await session.endSession()
})

t.test('invalid documents', async (t) => {
  const e1 = await mongoError(async () => await c.insertOne({ _id: [1, 2] } as never))
  t.equal(e1.code, 53)
  t.equal(e1.message, "The '_id' value cannot be of type array")
  // write errors come back inside an ok:1 reply
  const r2 = await h.db.command({ insert: 'e', documents: [{ _id: 'ok' }, { _id: { $bad: 1 } }] })
  t.equal(r2.n, 1)
  t.equal(r2.writeErrors[0].index, 1)
  t.equal(r2.writeErrors[0].code, 2)
  t.equal(r2.writeErrors[0].errmsg, "_id fields may not contain '$'-prefixed fields: $bad is not valid for storage.")
})

t.test('bad arguments', async (t) => {
  const e1 = await mongoError(async () => await h.db.command({ find: 'e', filter: 5 }))
  t.equal(e1.code, 14)
  const e2 = await mongoError(async () => await h.db.command({ find: 'e', limit: -1 }))
  t.equal(e2.code, 51024)
  const e3 = await mongoError(async () => await h.db.command({ insert: 'e', documents: [] }))
  t.equal(e3.code, 16)
  const r4 = await h.db.command({ delete: 'e', deletes: [{ q: {}, limit: 5 }] })
  t.equal(r4.writeErrors[0].code, 9)
  const e5 = await mongoError(async () => await h.db.command({ aggregate: 'e', pipeline: [] }))
  t.equal(e5.code, 9)
  const e6 = await mongoError(async () => await h.db.command({ find: 'e', sort: { a: 2 } }))
  t.equal(e6.code, 15975)
  const e7 = await mongoError(async () => await c.find({}).hint('nope').toArray())
  t.equal(e7.code, 2)
})

t.test('create / drop / listCollections / listDatabases / dropDatabase', async (t) => {
  const db = h.client.db('other')
  await db.createCollection('x')
  const e = await mongoError(async () => await db.createCollection('x'))
  t.equal(e.code, 48)
  t.same(
    (await db.listCollections().toArray()).map((c) => c.name),
    ['x']
  )
  const full = (await db.listCollections({ name: 'x' }).toArray())[0] as { type: string; idIndex?: unknown }
  t.equal(full.type, 'collection')
  t.same(full.idIndex, { v: 2, key: { _id: 1 }, name: '_id_' })
  const dbs = await h.client.db('admin').admin().listDatabases()
  t.ok(dbs.databases.some((d) => d.name === 'other'))
  t.equal(await db.collection('x').drop(), true)
  t.equal(
    await db
      .collection('never')
      .drop()
      .catch(() => false),
    true
  )
  await db.collection('y').insertOne({})
  await db.dropDatabase()
  t.same(await db.listCollections().toArray(), [])
  const capped = await mongoError(async () => await db.createCollection('c', { capped: true, size: 1000 }))
  t.equal(capped.code, 238)
})

t.test('handshake answers', async (t) => {
  const hello = await h.db.admin().command({ hello: 1 })
  t.equal(hello.isWritablePrimary, true)
  t.equal(hello.maxWireVersion, 21)
  t.equal(hello.logicalSessionTimeoutMinutes, 30)
  t.equal(hello.maxBsonObjectSize, 16777216)
  t.equal(hello.maxMessageSizeBytes, 48000000)
  t.equal(hello.maxWriteBatchSize, 100000)
  const legacy = await h.db.admin().command({ isMaster: 1 })
  t.equal(legacy.ismaster, true)
  const info = await h.db.admin().command({ buildInfo: 1 })
  t.equal(info.version, '7.0.0')
  t.same((await h.db.admin().command({ ping: 1 })).ok, 1)
})

t.test('renameCollection', async (t) => {
  const db = h.client.db('ren')
  await db.collection('a').insertMany([
    { _id: 1, k: 'x' },
    { _id: 2, k: 'y' }
  ] as never)
  await db.collection('a').createIndex({ k: 1 }, { unique: true })
  await db.collection('a').rename('b')
  t.same(
    (await db.listCollections().toArray()).map((c) => c.name),
    ['b']
  )
  t.equal(await db.collection('b').countDocuments(), 2)
  await t.rejects(db.collection('b').insertOne({ k: 'x' }), { code: 11000 }, 'indexes move with the collection')
  await db.collection('c').insertOne({})
  const e = await mongoError(async () => await db.collection('b').rename('c'))
  t.equal(e.code, 48)
  await db.collection('b').rename('c', { dropTarget: true })
  t.equal(await db.collection('c').countDocuments(), 2)
  const e2 = await mongoError(async () => await db.collection('nope').rename('z'))
  t.equal(e2.code, 26)
})

t.test('change streams are refused like a standalone; dbStats answers', async (t) => {
  const e = await mongoError(async () => {
    const cs = c.watch()
    try {
      await cs.tryNext()
    } finally {
      await cs.close()
    }
  })
  t.equal(e.code, 40573)
  const stats = await h.db.stats()
  t.equal(stats.db, 'test')
  t.ok(stats.objects >= 1)
})
