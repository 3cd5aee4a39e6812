import t from 'tap'
import { MongoClient } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t)
const clients = await Promise.all(
  [1, 2, 3, 4].map(async () => await new MongoClient(h.server.uri, { maxPoolSize: 10 }).connect())
)
t.teardown(async () => {
  await Promise.all(
    clients.map(async (c) => {
      await c.close()
    })
  )
})

t.test('concurrent $inc from many connections is exact', async (t) => {
  const coll = h.db.collection('counter')
  await coll.insertOne({ _id: 'c' as never, n: 0 })
  await Promise.all(
    clients.flatMap((c) =>
      Array.from(
        { length: 50 },
        async () =>
          await c
            .db('test')
            .collection('counter')
            .updateOne({ _id: 'c' as never }, { $inc: { n: 1 } })
      )
    )
  )
  t.equal((await coll.findOne({ _id: 'c' as never }))?.n, 200)
})

t.test('racing inserts of the same unique key: exactly one wins', async (t) => {
  const coll = h.db.collection('race')
  await coll.createIndex({ k: 1 }, { unique: true })
  const results = await Promise.allSettled(
    clients.flatMap((c) =>
      Array.from({ length: 10 }, async () => await c.db('test').collection('race').insertOne({ k: 'same' }))
    )
  )
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
  t.ok(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason.code === 11000))
  t.equal(await coll.countDocuments(), 1)
})

t.test('racing upserts create a single document', async (t) => {
  const coll = h.db.collection('ups')
  await Promise.all(
    clients.flatMap((c) =>
      Array.from(
        { length: 10 },
        async () =>
          await c
            .db('test')
            .collection('ups')
            .updateOne({ key: 'k' }, { $inc: { n: 1 } }, { upsert: true })
      )
    )
  )
  const docs = await coll.find().toArray()
  t.equal(docs.length, 1)
  t.equal(docs[0].n, 40)
})

t.test('findOneAndUpdate as a queue hands each job out once', async (t) => {
  const coll = h.db.collection('jobs')
  await coll.insertMany(Array.from({ length: 40 }, (_, i) => ({ i, taken: false })))
  const taken = await Promise.all(
    clients.flatMap((c) =>
      Array.from(
        { length: 10 },
        async () =>
          await c
            .db('test')
            .collection('jobs')
            .findOneAndUpdate({ taken: false }, { $set: { taken: true } }, { sort: { i: 1 } })
      )
    )
  )
  const ids = taken.map((d) => d?.i).sort((a, b) => a - b)
  t.same(
    ids,
    Array.from({ length: 40 }, (_, i) => i)
  )
})

t.test('readers see consistent documents while writers replace them', async (t) => {
  const coll = h.db.collection('pairs')
  await coll.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, a: 0, b: 0 })) as never)
  let bad = 0
  const writers = clients.slice(0, 2).map(async (c) => {
    for (let j = 1; j <= 30; j++) {
      await c
        .db('test')
        .collection('pairs')
        .updateMany({}, { $set: { a: j, b: j } })
    }
  })
  const readers = clients.slice(2).map(async (c) => {
    for (let j = 0; j < 30; j++) {
      for (const d of await c.db('test').collection('pairs').find({}).toArray()) if (d.a !== d.b) bad++
    }
  })
  await Promise.all([...writers, ...readers])
  t.equal(bad, 0)
})
