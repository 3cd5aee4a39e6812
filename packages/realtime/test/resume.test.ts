import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { buildApp, call, makeUser, sleep, stream } from './helper.js'

// CONTRACT "Realtime" resume: Last-Event-ID (or ?lastEventId=) replays every retained event
// after the cursor, once and in order, then goes live; a cursor past retention gets `reset`.

t.test('a client that reconnects with Last-Event-ID misses nothing and sees nothing twice', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const first = await stream(t, b, u.headers, 'types=logs.*')
  for (let i = 0; i < 3; i++) await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: `before ${i}` })
  const seen = await first.waitFor(3)
  first.close()
  // Written while the client is away (and another tenant's, which must stay out of the replay).
  const other = makeUser()
  for (let i = 0; i < 4; i++) {
    await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: `away ${i}` })
    await call(b.app, 'POST', '/api/v1/logs', other.headers, { line: `other ${i}` })
  }
  const again = await stream(t, b, { ...u.headers, 'last-event-id': seen[2].id as string }, 'types=logs.*')
  await again.waitFor(4)
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'live' })
  const got = await again.waitFor(5)
  await sleep(200)
  t.same(
    again.events().map((e) => e.data.record.line),
    ['away 0', 'away 1', 'away 2', 'away 3', 'live'],
    'the missed events once, in order, then live'
  )
  const cursors = got.map((e) => e.id as string)
  t.equal(new Set(cursors).size, 5)
  t.notOk(cursors.includes(seen[2].id as string), "the cursor's own event is not sent again")

  // The query parameter works the same; the header (what EventSource sends) wins over it.
  const byQuery = await stream(t, b, u.headers, `types=logs.*&lastEventId=${seen[0].id as string}`)
  await byQuery.waitFor(7)
  t.same(
    byQuery.events().map((e) => e.data.record.line),
    ['before 1', 'before 2', 'away 0', 'away 1', 'away 2', 'away 3', 'live']
  )
  const both = await stream(
    t,
    b,
    { ...u.headers, 'last-event-id': got[3].id as string },
    `types=logs.*&lastEventId=${seen[0].id as string}`
  )
  await both.waitFor(1)
  await sleep(200)
  t.same(
    both.events().map((e) => e.data.record.line),
    ['live'],
    'Last-Event-ID wins'
  )
})

t.test('a replay longer than one page joins the live feed without a gap or a repeat', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'graphql' as const }
  const logs = b.app.svc.services.get('logs')
  const first = await stream(t, b, u.headers, 'types=logs.created')
  await logs.createMany(ctx, [{ line: 'start' }])
  const [start] = await first.waitFor(1)
  first.close()
  for (let i = 0; i < 6; i++) {
    await logs.createMany(
      ctx,
      Array.from({ length: 200 }, (_, j) => ({ line: String(i * 200 + j) }))
    )
  }
  const resumed = await stream(t, b, { ...u.headers, 'last-event-id': start.id as string }, 'types=logs.created')
  // Live writes while the replay runs.
  for (let i = 0; i < 5; i++) await logs.createMany(ctx, [{ line: String(1200 + i) }])
  const got = await resumed.waitFor(1205, 30_000)
  await sleep(300)
  t.equal(resumed.events().length, 1205, 'exactly once')
  t.same(
    got.map((e) => Number(e.data.record.line)),
    Array.from({ length: 1205 }, (_, i) => i),
    'in order'
  )
})

t.test('a cursor past retention gets `reset` first, then live events', async (t) => {
  const b = await buildApp(t, {
    realtime: { retentionHours: 0.0001 },
    core: { eventLog: { pollMs: 20, leaseMs: 1500, sweepIntervalMs: 50 } }
  })
  const u = makeUser()
  const first = await stream(t, b, u.headers, 'types=logs.*')
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'old' })
  const [old] = await first.waitFor(1)
  first.close()
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'gone' })
  // Retention is 0.36 s; the sweep keeps the newest event, so write one more and wait for the sweep.
  await sleep(600)
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'newest' })
  const deadline = Date.now() + 5000
  while ((await b.app.svc.eventLog.retainedAfter()) < 2 && Date.now() < deadline) await sleep(50)
  t.ok((await b.app.svc.eventLog.retainedAfter()) >= 2, 'the sweep removed the old events')
  const again = await stream(t, b, { ...u.headers, 'last-event-id': old.id as string }, 'types=logs.*')
  await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: 'live' })
  await again.waitFor(2)
  const [reset, live] = again.events()
  t.equal(reset.event, 'reset', 'the client is told to re-read')
  t.type(reset.id, 'string', 'reset carries a cursor to resume from')
  t.equal(live.data.record.line, 'live')
  const fromReset = await stream(t, b, { ...u.headers, 'last-event-id': reset.id as string }, 'types=logs.*')
  await fromReset.waitFor(1)
  t.same(
    fromReset.events().map((e) => e.event),
    ['logs.created'],
    'the reset cursor resumes without another reset'
  )
})

t.test('across an instance restart: the next instance resumes the cursor exactly once, in order', async (t) => {
  const { db } = await getTestDb(t)
  const u = makeUser()
  const one = await buildApp(t, { db })
  const conn = await stream(t, one, u.headers, 'types=logs.*')
  await call(one.app, 'POST', '/api/v1/logs', u.headers, { line: 'a' })
  const [a] = await conn.waitFor(1)
  await call(one.app, 'POST', '/api/v1/logs', u.headers, { line: 'b' })
  await conn.waitFor(2)
  await one.app.close()
  await conn.ended
  t.pass('closing the instance ends its streams (the server does not wait for them)')
  const two = await buildApp(t, { db })
  await call(two.app, 'POST', '/api/v1/logs', u.headers, { line: 'c' })
  const resumed = await stream(t, two, { ...u.headers, 'last-event-id': a.id as string }, 'types=logs.*')
  await resumed.waitFor(2)
  await call(two.app, 'POST', '/api/v1/logs', u.headers, { line: 'd' })
  await resumed.waitFor(3)
  await sleep(200)
  t.same(
    resumed.events().map((e) => e.data.record.line),
    ['b', 'c', 'd']
  )
})
