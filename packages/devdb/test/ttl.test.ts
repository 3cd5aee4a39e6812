import t from 'tap'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t, { ttlMonitorSleepSecs: 0.2 })

t.test('expired documents are removed by the TTL monitor', async (t) => {
  const c = h.db.collection('sessions')
  await c.createIndex({ at: 1 }, { expireAfterSeconds: 1 })
  const list = await c.listIndexes().toArray()
  t.same(list[1], { v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 1 })
  const now = Date.now()
  await c.insertMany([
    { k: 'old', at: new Date(now - 60_000) },
    { k: 'oldArray', at: [new Date(now + 3_600_000), new Date(now - 60_000)] },
    { k: 'fresh', at: new Date(now + 3_600_000) },
    { k: 'notADate', at: 'yesterday' },
    { k: 'missing' }
  ])
  await new Promise((resolve) => setTimeout(resolve, 700))
  t.same(
    (await c.find({}).sort({ k: 1 }).toArray()).map((d) => d.k),
    ['fresh', 'missing', 'notADate']
  )
})

t.test(
  'setParameter ttlMonitorSleepSecs changes the sleep of the TTL monitor at run time; getParameter reports it',
  async (t) => {
    const admin = h.client.db('admin')
    t.equal(
      (await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 })).ttlMonitorSleepSecs,
      0.2,
      'the startup option'
    )
    const r = await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 3600 })
    t.equal(r.was, 0.2)
    t.equal((await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 })).ttlMonitorSleepSecs, 3600)
    await new Promise((resolve) => setTimeout(resolve, 400)) // the sleep under way (0.2 s) ends
    const c = h.db.collection('ttlParam')
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 0 })
    await c.insertOne({ at: new Date(0) })
    await new Promise((resolve) => setTimeout(resolve, 700))
    t.equal(
      await c.countDocuments(),
      1,
      'from its next sleep on the monitor sleeps an hour (as mongod: the sleep under way ends first)'
    )
    const bad = await mongoError(async () => await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 0 }))
    t.equal(bad.code, 72)
  }
)
