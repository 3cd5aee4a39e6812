import t from 'tap'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t, { ttlMonitorSleepSecs: 0.2 })

t.test('expired documents are removed by the TTL monitor', async t => {
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
  await new Promise(resolve => setTimeout(resolve, 700))
  t.same((await c.find({}).sort({ k: 1 }).toArray()).map(d => d.k), ['fresh', 'missing', 'notADate'])
})
