import t from 'tap'
import { getStandaloneTestDb, getTestDb } from '@svc/testkit'
import { buildApp, call, makeUser, sleep, stream } from './helper.js'

// CONTRACT "Realtime" replicas: every instance on one database delivers every event, whichever
// instance wrote it, within 1 s (a tailing poll where the deployment has no change streams).

for (const deployment of ['replica set', 'standalone']) {
  t.test(
    `${deployment}: streams on two instances see every write of both within 1 s, once, in one order`,
    async (t) => {
      const { db } = deployment === 'standalone' ? await getStandaloneTestDb(t) : await getTestDb(t)
      // The shipped settings on each side (poll period and sequencer lease). A short lease made a
      // holder stalled by a loaded machine give the sequencer up, and the events waited for it.
      const core = { eventLog: { pollMs: 100 } }
      const a = await buildApp(t, { db, core })
      const b = await buildApp(t, { db, core })
      const u = makeUser()
      const onA = await stream(t, a, u.headers, 'types=logs.created')
      const onB = await stream(t, b, u.headers, 'types=logs.created')
      const answered = new Map<string, number>()
      const arrived = { a: new Map<string, number>(), b: new Map<string, number>() }
      const watch = (conn: typeof onA, into: Map<string, number>): void => {
        const seen = new Set<string>()
        const tick = setInterval(() => {
          for (const e of conn.events()) {
            if (seen.has(e.id as string)) continue
            seen.add(e.id as string)
            into.set(e.data.recordId, Date.now())
          }
        }, 5)
        t.teardown(() => {
          clearInterval(tick)
        })
      }
      watch(onA, arrived.a)
      watch(onB, arrived.b)
      for (let i = 0; i < 20; i++) {
        const app = i % 2 === 0 ? a.app : b.app
        const rec = await call(app, 'POST', '/api/v1/logs', u.headers, { line: `l${i}` })
        answered.set(rec._id, Date.now())
        await sleep(20)
      }
      await onA.waitFor(20)
      await onB.waitFor(20)
      await sleep(300)
      for (const [name, conn] of [
        ['a', onA],
        ['b', onB]
      ] as const) {
        t.equal(conn.events().length, 20, `instance ${name}: each event once`)
        const lags = [...answered].map(([id, at]) => (arrived[name].get(id) ?? Infinity) - at)
        t.ok(Math.max(...lags) < 1000, `instance ${name}: every event within 1 s (max ${Math.max(...lags)} ms)`)
      }
      t.same(
        onA.events().map((e) => e.id),
        onB.events().map((e) => e.id),
        'the same cursors in the same order on both'
      )
      // A cursor from one instance resumes on the other.
      const cut = onA.events()[9]
      const resumed = await stream(t, b, { ...u.headers, 'last-event-id': cut.id as string }, 'types=logs.created')
      await resumed.waitFor(10)
      t.same(
        resumed.events().map((e) => e.id),
        onA
          .events()
          .slice(10)
          .map((e) => e.id)
      )
    }
  )
}
