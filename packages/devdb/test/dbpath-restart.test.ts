import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startDevDb } from '@svc/devdb'

const dir = mkdtempSync(join(tmpdir(), 'devdb-restart-'))
t.teardown(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function withServer<T> (fn: (c: MongoClient) => Promise<T>): Promise<T> {
  const server = await startDevDb({ port: 0, dbPath: dir })
  const client = await new MongoClient(server.uri).connect()
  try {
    return await fn(client)
  } finally {
    await client.close()
    await server.stop()
  }
}

t.test('documents, indexes and drops survive a restart', async (t) => {
  await withServer(async (c) => {
    const db = c.db('app')
    await db.collection('users').createIndex({ email: 1 }, { unique: true })
    await db.collection('users').insertMany([
      { _id: 1, email: 'a' },
      { _id: 2, email: 'b' },
      { _id: 3, email: 'c' }
    ] as never)
    await db.collection('users').updateOne({ _id: 2 as never }, { $set: { name: 'bee' } })
    await db.collection('users').deleteOne({ _id: 3 as never })
    await db.collection('gone').insertOne({ x: 1 })
    await db.collection('gone').drop()
    await c.db('tmp').collection('t').insertOne({})
    await c.db('tmp').dropDatabase()
  })
  await withServer(async (c) => {
    const db = c.db('app')
    t.same(await db.collection('users').find().sort({ _id: 1 }).toArray(), [
      { _id: 1, email: 'a' },
      { _id: 2, email: 'b', name: 'bee' }
    ])
    t.same(
      (await db.collection('users').listIndexes().toArray()).map((i) => i.name),
      ['_id_', 'email_1']
    )
    await t.rejects(
      db.collection('users').insertOne({ email: 'a' }),
      { code: 11000 },
      'unique index enforced after restart'
    )
    t.same(
      (await db.listCollections().toArray()).map((x) => x.name),
      ['users']
    )
    const dbs = (await c.db('admin').admin().listDatabases()).databases.map((d) => d.name)
    t.notOk(dbs.includes('tmp'))
  })
})
