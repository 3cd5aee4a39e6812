import t from 'tap'
import { MongoClient, ObjectId } from 'mongodb'
import { startDevDb } from '../src/index.js'
import { tempDir } from './fixtures/durability/store-helpers.js'

/** Runs `fn` against a devdb on `dbPath`, then stops it (client first, then server). */
async function withServer<T> (
  dbPath: string,
  fn: (client: MongoClient) => Promise<T>,
  options: { snapshotIntervalMs?: number } = {}
): Promise<T> {
  const db = await startDevDb({ dbPath, ...options })
  const client = new MongoClient(db.uri, { serverSelectionTimeoutMS: 5000 })
  try {
    await client.connect()
    return await fn(client)
  } finally {
    await client.close()
    await db.stop()
  }
}

t.test('writes, indexes and drops survive a restart', async (t) => {
  const dbPath = await tempDir(t, 'devdb-restart-')
  const oid = new ObjectId()
  await withServer(dbPath, async (client) => {
    const app = client.db('app')
    const users = app.collection('users')
    await users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' })
    await users.createIndex({ age: -1 })
    await users.insertMany([
      { _id: oid, email: 'ann@example.com', age: 31, tags: ['a', 'b'], nested: { at: new Date(1700000000000) } },
      { email: 'bob@example.com', age: 40 },
      { email: 'cy@example.com', age: 22 }
    ])
    await users.updateOne({ email: 'bob@example.com' }, { $set: { age: 41 }, $push: { log: 'birthday' } as never })
    await users.deleteOne({ email: 'cy@example.com' })
    await users.updateOne({ email: 'dee@example.com' }, { $set: { age: 19 } }, { upsert: true })
    await users.dropIndex('age_-1')
    await app.collection('scratch').insertOne({ x: 1 })
    await app.collection('scratch').drop()
    await app.createCollection('empty')
    await client.db('gone').collection('c').insertOne({ y: 1 })
    await client.db('gone').dropDatabase()
  })

  await withServer(dbPath, async (client) => {
    const app = client.db('app')
    const users = app.collection('users')
    const docs = await users
      .find({}, { projection: { _id: 0 } })
      .sort({ email: 1 })
      .toArray()
    t.same(docs, [
      { email: 'ann@example.com', age: 31, tags: ['a', 'b'], nested: { at: new Date(1700000000000) } },
      { email: 'bob@example.com', age: 41, log: ['birthday'] },
      { email: 'dee@example.com', age: 19 }
    ])
    t.ok((await users.findOne({ _id: oid }))?._id.equals(oid), 'ObjectId _id lookup works after restart')
    const indexes = await users.listIndexes().toArray()
    t.same(indexes.map((i) => i.name).sort(), ['_id_', 'email_unique'])
    t.equal(indexes.find((i) => i.name === 'email_unique')?.unique, true)
    await t.rejects(users.insertOne({ email: 'ann@example.com' }), { code: 11000 }, 'unique index still enforced')
    const names = (await app.listCollections().toArray()).map((c) => c.name).sort()
    t.same(names, ['empty', 'users'])
    const dbs = (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name)
    t.notOk(dbs.includes('gone'), 'dropped database stays dropped')
    // A second round of writes on top of the recovered state.
    await users.insertOne({ email: 'eve@example.com' })
  })

  await withServer(dbPath, async (client) => {
    t.equal(await client.db('app').collection('users').countDocuments(), 4, 'third start sees the second session too')
  })
})

t.test('many writes across periodic snapshots survive a restart', async (t) => {
  const dbPath = await tempDir(t, 'devdb-restart-')
  await withServer(
    dbPath,
    async (client) => {
      const c = client.db('app').collection<{ _id: number; round: number }>('items')
      for (let round = 0; round < 5; round++) {
        await c.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: round * 200 + i, round })))
        await c.deleteMany({ _id: { $mod: [10, round] } } as never)
        await new Promise((resolve) => setTimeout(resolve, 60)) // let a snapshot run between rounds
      }
    },
    { snapshotIntervalMs: 50 }
  )
  const files = await import('node:fs/promises').then((fs) => fs.readdir(dbPath))
  t.ok(
    files.some((f) => f.startsWith('snapshot-')),
    `a snapshot was written (${files.join(', ')})`
  )
  await withServer(dbPath, async (client) => {
    const c = client.db('app').collection('items')
    const expected: number[] = []
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 200; i++) {
        const id = round * 200 + i
        // Round r deleted ids ≡ r (mod 10) among the documents present then.
        let deleted = false
        for (let r = round; r < 5; r++) if (id % 10 === r) deleted = true
        if (!deleted) expected.push(id)
      }
    }
    const ids = (
      await c
        .find({}, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .toArray()
    ).map((d) => d._id)
    t.same(ids, expected)
  })
})
