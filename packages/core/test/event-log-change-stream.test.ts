import t, { type Test } from 'tap'
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb'
import { getFailPointTestDb, getStandaloneTestDb } from '@svc/testkit'
import type { LoggedEvent } from '../src/kit.js'
import { makeUser } from './helper.js'
import { buildLogApp, eventually } from './fixtures/event-log-app.js'

// The log follows itself by change stream where the deployment serves them (devdb's replica set
// does, as mongod's), by polling elsewhere; the stream only wakes the loops, it never orders them.

const SLOW_POLL = { pollMs: 5000, leaseMs: 15_000 }

async function post (app: Awaited<ReturnType<typeof buildLogApp>>, title: string): Promise<void> {
  const u = makeUser()
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title } })
  if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`)
}

t.test('a replica set: change-stream mode, a write reaches a follower long before the poll would', async (t) => {
  const app = await buildLogApp(t, { eventLog: SLOW_POLL })
  t.equal(app.svc.eventLog.mode, 'change-stream')
  const seen: Array<{ e: LoggedEvent; at: number }> = []
  await app.svc.eventLog.follow(null, (events) => {
    for (const e of events) seen.push({ e, at: Date.now() })
  })
  // at once after start-up (the stream may still be opening: the catch-up once it answers covers that)
  let at = Date.now()
  await post(app, 'first')
  const first = await eventually(() => seen.find((s) => s.e.record?.title === 'first'), 4000)
  t.ok(first.at - at < 2500, `a write right after start-up delivered in ${first.at - at} ms with a 5 s poll period`)
  // then with the loops idle: only the stream can wake them before 5 s
  await new Promise((resolve) => setTimeout(resolve, 300))
  at = Date.now()
  await post(app, 'woken')
  const got = await eventually(() => seen.find((s) => s.e.record?.title === 'woken'), 4000)
  t.ok(got.at - at < 2500, `delivered in ${got.at - at} ms with a 5 s poll period`)
})

t.test('a standalone, or changeStreams: false: poll mode, still delivered', async (t) => {
  const { db } = await getStandaloneTestDb(t)
  const standalone = await buildLogApp(t, { db })
  t.equal(standalone.svc.eventLog.mode, 'poll', 'a standalone serves no change streams')
  const off = await buildLogApp(t, { eventLog: { changeStreams: false } })
  t.equal(off.svc.eventLog.mode, 'poll', 'turned off by option')
  const seen: LoggedEvent[] = []
  await off.svc.eventLog.follow(null, (events) => {
    seen.push(...events)
  })
  await post(off, 'polled')
  await eventually(() => seen.some((e) => e.record?.title === 'polled'))
  t.pass('the poll delivers')
})

t.test('a failing change stream: the log polls, reopens the stream, and loses nothing', async (t) => {
  const { uri } = await getFailPointTestDb(t)
  // a client of its own that reports the commands it sends (the log's stream opens among them)
  const client = new MongoClient(uri, { monitorCommands: true })
  await client.connect()
  t.teardown(async () => {
    await client.close()
  })
  const db = client.db()
  const opens: number[] = []
  const onStart = (ev: CommandStartedEvent): void => {
    const first =
      ev.commandName === 'aggregate' ? (ev.command.pipeline as Array<Record<string, unknown>>)?.[0] : undefined
    if (first?.$changeStream !== undefined && ev.command.aggregate === 1) opens.push(Date.now())
  }
  client.on('commandStarted', onStart)
  const app = await buildLogApp(t, { db, eventLog: { pollMs: 50, leaseMs: 900 } })
  t.equal(app.svc.eventLog.mode, 'change-stream')
  await eventually(() => opens.length >= 2, 5000) // the support probe, then the log's own stream
  const before = opens.length
  const seen: LoggedEvent[] = []
  await app.svc.eventLog.follow(null, (events) => {
    seen.push(...events)
  })
  // a non-resumable error on the stream's next getMore: the driver gives up on it
  await db.admin().command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['getMore'], errorCode: 2 }
  })
  await post(app, 'during')
  await eventually(() => seen.some((e) => e.record?.title === 'during'), 5000)
  await eventually(() => opens.length > before, 5000)
  t.pass('the stream was reopened after the failure')
  await post(app, 'after')
  await eventually(() => seen.some((e) => e.record?.title === 'after'), 5000)
  t.same(
    seen.map((e) => e.seq),
    seen.map((_, i) => seen[0].seq + i),
    'every event once, in order'
  )
  await db.admin().command({ configureFailPoint: 'failCommand', mode: 'off' })
})

/** A client of its own on `uri` that counts the log's head reads (`find` on svc_events by `seq >`) and its stream's getMores. */
async function countingDb (t: Test, uri: string): Promise<{ db: Db; reads: () => number; wakes: () => number }> {
  const client = new MongoClient(uri, { monitorCommands: true })
  await client.connect()
  t.teardown(async () => {
    await client.close()
  })
  let reads = 0
  let wakes = 0
  client.on('commandStarted', (ev: CommandStartedEvent) => {
    if (ev.commandName === 'find' && ev.command.find === 'svc_events' && ev.command.filter?.seq?.$gt !== undefined) {
      reads++
    }
    if (ev.commandName === 'getMore' && ev.command.collection === '$cmd.aggregate') wakes++
  })
  return { db: client.db(), reads: () => reads, wakes: () => wakes }
}

t.test(
  'two instances: the counter on the stream wakes the other one; a batch already read is not read again, nor a process’s own insert',
  async (t) => {
    const { uri } = await getFailPointTestDb(t)
    const a = await countingDb(t, uri)
    const leader = await buildLogApp(t, { db: a.db, eventLog: SLOW_POLL })
    await eventually(() => leader.svc.eventLog.leading, 5000)
    const b = await countingDb(t, uri)
    const other = await buildLogApp(t, { db: b.db, eventLog: SLOW_POLL })
    t.equal(other.svc.eventLog.leading, false, 'the second instance does not lead')
    const seenA: LoggedEvent[] = []
    const seenB: Array<{ e: LoggedEvent; at: number }> = []
    await leader.svc.eventLog.follow(null, (events) => {
      seenA.push(...events)
    })
    await other.svc.eventLog.follow(null, (events) => {
      for (const e of events) seenB.push({ e, at: Date.now() })
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Only the leader's counter, seen on the other instance's stream, can wake it before its 5 s poll.
    const at = Date.now()
    await post(leader, 'to the other')
    const got = await eventually(() => seenB.find((s) => s.e.record?.title === 'to the other'), 4000)
    t.ok(got.at - at < 2500, `the other instance read it ${got.at - at} ms after the write, with a 5 s poll period`)
    // The leader reads each batch once: its own stamp wakes its follower, and the counter's move
    // that comes back on its stream finds it already there.
    await eventually(() => seenA.some((e) => e.record?.title === 'to the other'), 4000)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const before = a.reads()
    const wokenBefore = a.wakes()
    for (let i = 0; i < 5; i++) {
      await post(leader, `one by one ${i}`)
      await eventually(() => seenA.some((e) => e.record?.title === `one by one ${i}`), 4000)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const reads = a.reads() - before
    // One read per batch, and at most one more if the 5 s poll happened to tick meanwhile (a stamp per event would double them).
    t.ok(reads >= 5 && reads <= 6, `the leader read the log's head ${reads} times for 5 batches`)
    // Its stream brings the counter's 5 moves, not its own 5 inserts (its writes woke its sequencer directly).
    const woken = a.wakes() - wokenBefore
    t.ok(woken >= 5 && woken <= 7, `the leader's stream answered ${woken} times for 5 writes`)
    await eventually(() => seenB.filter((s) => String(s.e.record?.title).startsWith('one by one')).length === 5, 4000)
    // A write on the instance that does not lead reaches the leader's sequencer by its stream.
    const fromOther = Date.now()
    await post(other, 'from the other')
    await eventually(() => seenA.some((e) => e.record?.title === 'from the other'), 4000)
    const took = Date.now() - fromOther
    t.ok(took < 2500, `the other instance's write was stamped and read ${took} ms later, with a 5 s poll period`)
    await eventually(() => seenB.some((s) => s.e.record?.title === 'from the other'), 4000)
    t.same(
      seenB.map((s) => s.e.seq),
      seenA.map((e) => e.seq),
      'both instances saw the same events in one order'
    )
  }
)
