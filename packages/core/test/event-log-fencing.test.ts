import t from 'tap'
import type { Db } from 'mongodb'
import { getStandaloneTestDb, getTestDb, type Teardownable } from '@svc/testkit'
import { EVENTS_COLLECTION, LEASES_COLLECTION } from '../src/kit.js'
import { makeUser } from './helper.js'
import { buildLogApp, eventually, stamped } from './fixtures/event-log-app.js'

// The sequencer's fences: a lease judged by the database clock, transactions, the unique seq index.

const DEPLOYMENTS = [
  { name: 'replica set', db: async (t: Teardownable) => (await getTestDb(t)).db },
  { name: 'standalone', db: async (t: Teardownable) => (await getStandaloneTestDb(t)).db }
]
const SEQUENCER = 'svc_events.sequencer' as never

const seqsOf = async (db: Db): Promise<number[]> =>
  (
    await db
      .collection(EVENTS_COLLECTION)
      .find({ seq: { $exists: true } })
      .sort({ seq: 1 })
      .toArray()
  ).map((d) => d.seq)

for (const d of DEPLOYMENTS) {
  t.test(
    `${d.name}: a dead holder's lease is waited out, then numbering goes on from the stored counter`,
    async (t) => {
      const db = await d.db(t)
      // Long enough that building the app on a loaded CI machine leaves the check inside the lease.
      const until = Date.now() + 3000
      await db
        .collection(LEASES_COLLECTION)
        .insertOne({ _id: SEQUENCER, holder: 'dead-process', until: new Date(until), seq: 41 })
      const app = await buildLogApp(t, { db })
      const u = makeUser()
      await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } })
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now() - 1000)))
      const checkedAt = Date.now()
      t.same(await seqsOf(db), [], "nothing stamped while the dead holder's lease runs")
      t.ok(checkedAt < until, `checked ${until - checkedAt} ms before the lease ended`)
      t.equal(app.svc.eventLog.leading, false)
      await stamped(app, 1)
      t.ok(Date.now() >= until, 'stamped only after the lease ended')
      t.same(await seqsOf(db), [42], 'the stored counter goes on')
    }
  )

  t.test(`${d.name}: a number another sequencer already used fails loudly and is never given twice`, async (t) => {
    const db = await d.db(t)
    const app = await buildLogApp(t, { db })
    const u = makeUser()
    for (const title of ['a', 'b']) {
      await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title } })
    }
    await stamped(app, 2)
    // A rogue sequencer (a broken fence) stamped its own event with the next number.
    await db.collection(EVENTS_COLLECTION).insertOne({
      _id: 'rogue' as never,
      type: 'tasks.created',
      version: 'v1',
      path: 'tasks',
      userId: u.userId,
      at: new Date(),
      seq: 3
    })
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'c' } })
    await eventually(
      async () => (await db.collection(EVENTS_COLLECTION).countDocuments({ pending: { $exists: true } })) === 0
    )
    t.same(await seqsOf(db), [1, 2, 3, 4], 'the unique index refused the second 3; the event got 4')
    t.equal((await db.collection(EVENTS_COLLECTION).findOne({ seq: 4 }))?.record?.title, 'c')
  })

  t.test(`${d.name}: a counter left behind by a crash is recovered from the highest stamp`, async (t) => {
    const db = await d.db(t)
    const first = await buildLogApp(t, { db })
    const u = makeUser()
    for (const title of ['a', 'b', 'c']) {
      await first.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title } })
    }
    await stamped(first, 3)
    await first.close()
    // As a crash between stamping and storing the counter leaves it (standalone path).
    await db
      .collection(LEASES_COLLECTION)
      .updateOne({ _id: SEQUENCER }, { $set: { seq: 1, holder: 'crashed', until: new Date(0) } })
    const next = await buildLogApp(t, { db })
    await next.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'd' } })
    await stamped(next, 4)
    t.same(await seqsOf(db), [1, 2, 3, 4])
  })
}

t.test("replica set: a takeover aborts the holder's stamping transaction", async (t) => {
  const { db } = await getTestDb(t)
  const app = await buildLogApp(t, { db })
  t.equal(app.svc.transactions, true)
  const u = makeUser()
  await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } })
  await stamped(app, 1)
  t.equal(app.svc.eventLog.leading, true)
  const until = Date.now() + 1000
  // Another process takes the lease (as after this one stalled past its end).
  await db
    .collection(LEASES_COLLECTION)
    .updateOne({ _id: SEQUENCER }, { $set: { holder: 'taker', until: new Date(until) } })
  await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'b' } })
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same(await seqsOf(db), [1], 'the guarded counter update missed: the batch was rolled back')
  t.equal(app.svc.eventLog.leading, false, 'and the process knows it does not lead')
  await stamped(app, 2)
  t.ok(Date.now() >= until, "it leads again only once the taker's lease ended")
  t.same(await seqsOf(db), [1, 2])
})
