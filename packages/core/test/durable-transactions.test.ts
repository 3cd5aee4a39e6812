import t from 'tap'
import { ObjectId, type Document } from 'mongodb'
import { getStandaloneTestDb, getTestDb } from '@svc/testkit'
import { INTENTS_COLLECTION } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'
import { SCHEMAS, withLog } from './fixtures/durable-schemas.js'

// The transaction path of durable effects: when it is chosen, and what it guarantees beyond the
// write-ahead path (durable-effects.test.ts holds what both paths guarantee).

function logLines (): { lines: Array<Record<string, unknown>>; fastify: Record<string, unknown> } {
  const lines: Array<Record<string, unknown>> = []
  return {
    lines,
    fastify: {
      logger: {
        level: 'info',
        stream: {
          write: (l: string) => {
            lines.push(JSON.parse(l))
          }
        }
      }
    }
  }
}

t.test(
  'auto: transactions on a replica set, write-ahead intents on a standalone; asked once, logged once',
  async (t) => {
    {
      const log = logLines()
      const app = await buildCoreApp(t, { schemas: SCHEMAS, plugins: [withLog], fastify: log.fastify })
      t.equal(app.svc.transactions, true, 'devdb answers as a replica set: on')
      t.match(
        log.lines.filter((l) => l.transactions !== undefined),
        [{ level: 30, transactions: true, option: 'auto', msg: 'durable effects commit in transactions' }],
        'one info line'
      )
    }
    {
      const log = logLines()
      const { db } = await getStandaloneTestDb(t)
      const app = await buildCoreApp(t, {
        db,
        schemas: SCHEMAS,
        plugins: [withLog],
        fastify: log.fastify,
        options: { intentReconcileMs: 0 }
      })
      t.equal(app.svc.transactions, false, 'a standalone: off')
      t.match(
        log.lines.filter((l) => l.transactions !== undefined),
        [{ level: 30, transactions: false, option: 'auto', msg: 'durable effects commit through write-ahead intents' }]
      )
      const u = makeUser()
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: u.headers,
        payload: { title: 'a' }
      })
      t.equal(res.statusCode, 201, 'writes work there')
      t.equal(await db.collection('effects').countDocuments(), 1, 'with their effects')
      t.equal(await db.collection(INTENTS_COLLECTION).countDocuments({ state: 'done' }), 1, 'through an intent')
    }
    {
      const app = await buildCoreApp(t, { schemas: SCHEMAS, options: { transactions: false } })
      t.equal(app.svc.transactions, false, '`false` on a replica set: off')
    }
  }
)

t.test('`transactions: true` on a standalone, or a value outside the option, stops start-up', async (t) => {
  const { db } = await getStandaloneTestDb(t)
  await t.rejects(
    buildCoreApp(t, { db, schemas: SCHEMAS, options: { transactions: true } }),
    /`transactions: true` but the server runs no transactions/
  )
  await t.rejects(
    buildCoreApp(t, { db, schemas: SCHEMAS, options: { transactions: 'yes' as never } }),
    /must be 'auto', true or false/
  )
  const app = await buildCoreApp(t, { schemas: SCHEMAS, options: { transactions: true } })
  t.equal(app.svc.transactions, true, '`true` on a replica set')
})

t.test(
  'an effect document the database refuses inside the transaction refuses the write: no record, no intent',
  async (t) => {
    const app = await buildCoreApp(t, { schemas: SCHEMAS, plugins: [withLog] })
    const db = app.svc.db
    const u = makeUser()
    const now = new Date()
    const id = (
      await db
        .collection('tasks')
        .insertOne({ title: 'kept', status: 'open', userId: u.userId, createdAt: now, updatedAt: now })
    ).insertedId.toHexString()
    // Every effect row but a transition's has `to: null`: a unique index on it refuses them all.
    const effects = db.collection('effects')
    await effects.insertOne({ _id: 'blocker', to: null } as Document)
    await effects.createIndex({ to: 1 }, { unique: true, name: 'test_blocker' })
    const before = await effects.countDocuments()

    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'refused' }
    })
    t.equal(created.statusCode, 500, "not the client's conflict: 500")
    t.equal(created.json().error.code, 'INTERNAL')
    t.equal(await db.collection('tasks').countDocuments({ title: 'refused' }), 0, 'no record without its effect')
    const updated = await app.inject({
      method: 'PUT',
      url: `/api/v1/tasks/${id}`,
      headers: u.headers,
      payload: { n: 1 }
    })
    t.equal(updated.statusCode, 500)
    t.equal((await db.collection('tasks').findOne({ _id: new ObjectId(id) }))?.n, undefined, 'the update did not land')
    const bulk = await app.inject({
      method: 'PUT',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { filter: {}, record: { n: 2 } }
    })
    t.equal(bulk.statusCode, 500)
    t.equal(await db.collection('tasks').countDocuments({ n: 2 }), 0, 'nor the bulk one')
    const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: u.headers })
    t.equal(deleted.statusCode, 500)
    t.equal(await db.collection('tasks').countDocuments({ _id: new ObjectId(id) }), 1, 'nor the delete')
    t.equal(await effects.countDocuments(), before, 'and no effect row either')
    t.equal(await db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'nothing left for a reconciler')

    await effects.dropIndex('test_blocker')
    t.equal(
      (await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 3 } }))
        .statusCode,
      200,
      'writes land again once the effects can be inserted'
    )
  }
)

t.test('a record held by another open transaction: the writer retries for 5 s, then 409; no intent ever', async (t) => {
  const app = await buildCoreApp(t, { schemas: SCHEMAS, plugins: [withLog] })
  const db = app.svc.db
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'held' } })
  ).json()._id
  const aborted = async (): Promise<number> => (await db.admin().command({ serverStatus: 1 })).transactions.totalAborted

  const abortedBefore = await aborted()
  const puts = await Promise.all(
    Array.from(
      { length: 8 },
      async (_, i) =>
        await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: i } })
    )
  )
  t.same(
    puts.map((r) => r.statusCode),
    Array(8).fill(200),
    'parallel updates all land'
  )
  t.ok((await aborted()) > abortedBefore, 'after write conflicts (aborted transactions, planned again)')
  t.equal(await db.collection('effects').countDocuments({ recordId: id, action: 'updated' }), 8, 'one effect each')

  const { client } = await getTestDb(t)
  const session = client.startSession()
  t.teardown(async () => await session.endSession())
  session.startTransaction()
  await client
    .db(db.databaseName)
    .collection('tasks')
    .updateOne({ _id: new ObjectId(id) }, { $set: { n: -1 } }, { session })
  const started = Date.now()
  const held = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 100 } })
  const waited = Date.now() - started
  t.equal(held.statusCode, 409, 'contention past the bound: 409')
  t.equal(held.json().error.code, 'CONFLICT')
  t.ok(waited >= 4900 && waited < 9000, `answered after the 5 s bound (${waited} ms)`)
  await session.abortTransaction()
  t.equal(
    (await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 101 } }))
      .statusCode,
    200,
    'free again: lands'
  )
  t.equal(await db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'the transaction path never writes an intent')
})
