import t from 'tap'
import { MongoClient } from 'mongodb'
import type { FastifyInstance } from 'fastify'
import { getTestDb } from '@svc/testkit'
import type { LoggedEvent } from '../src/kit.js'
import { makeUser } from './helper.js'
import { buildLogApp, eventually, stamped } from './fixtures/event-log-app.js'

// Live consumers in one process: replay from a position, then live, in order, without a gap or a repeat.

async function create (app: FastifyInstance, headers: Record<string, string>, titles: string[]): Promise<void> {
  for (const title of titles) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers, payload: { title } })
    if (res.statusCode !== 201) throw new Error(res.body)
  }
}

const names = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const seqs = (events: LoggedEvent[]): number[] => events.map((e) => e.seq)
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

t.test('live: a subscription from now gets each later event once, in order', async (t) => {
  const app = await buildLogApp(t)
  const u = makeUser()
  await create(app, u.headers, ['before'])
  await stamped(app, 1)
  const got: LoggedEvent[] = []
  const sub = await app.svc.eventLog.follow(null, (events) => {
    got.push(...events)
  })
  await create(app, u.headers, names('a', 5))
  await eventually(() => got.length >= 5)
  t.same(seqs(got), [2, 3, 4, 5, 6], 'only what came after the subscription')
  t.same(
    got.map((e) => e.record?.title),
    names('a', 5)
  )
  await eventually(() => sub.position === 6)
  sub.close()
  t.equal(sub.closed, true)
  await create(app, u.headers, ['after'])
  await stamped(app, 7)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(got.length, 5, 'nothing after close')
})

t.test('replay from a position while writes go on, then live: every event exactly once', async (t) => {
  const app = await buildLogApp(t)
  const u = makeUser()
  await create(app, u.headers, names('old', 30))
  await stamped(app, 30)
  const got: LoggedEvent[] = []
  const writing = create(app, u.headers, names('new', 30))
  // Small pages through a slow handler: the replay is still running when live batches arrive.
  const sub = await app.svc.eventLog.follow(10, async (events) => {
    got.push(...events)
    await new Promise((resolve) => setTimeout(resolve, 5))
  })
  await writing
  await eventually(() => got.length >= 50)
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.same(seqs(got), range(11, 60), 'seq 11..60, no gap, no repeat, in order')
  t.equal(sub.position, 60)
  sub.close()
})

t.test(
  'a handler slower than the writes: its queue is dropped past maxQueued and it reads the log instead',
  async (t) => {
    const app = await buildLogApp(t)
    const u = makeUser()
    const got: LoggedEvent[] = []
    let calls = 0
    const sub = await app.svc.eventLog.follow(
      null,
      async (events) => {
        calls++
        got.push(...events)
        await new Promise((resolve) => setTimeout(resolve, 40))
      },
      { maxQueued: 2 }
    )
    await create(app, u.headers, names('x', 40))
    await eventually(() => got.length >= 40, 20_000)
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.same(seqs(got), range(1, 40), 'all of them, in order, once')
    t.ok(calls < 40, `batched while catching up (${calls} calls for 40 events)`)
    sub.close()
    await sub.idle()
  }
)

t.test('filter: only matching events reach the handler, the position moves past the others', async (t) => {
  const app = await buildLogApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const got: LoggedEvent[] = []
  const sub = await app.svc.eventLog.follow(
    0,
    (events) => {
      got.push(...events)
    },
    { filter: (e) => e.userId === alice.userId }
  )
  await create(app, alice.headers, ['a1'])
  await create(app, bob.headers, ['b1', 'b2'])
  await create(app, alice.headers, ['a2'])
  await eventually(() => sub.position === 4)
  t.same(
    got.map((e) => e.record?.title),
    ['a1', 'a2'],
    "the other tenant's events never reach it"
  )
  sub.close()
})

t.test('a throwing handler closes its subscription and reports; the others go on', async (t) => {
  const app = await buildLogApp(t)
  const u = makeUser()
  const errors: unknown[] = []
  const healthy: LoggedEvent[] = []
  const failing = await app.svc.eventLog.follow(
    null,
    () => {
      throw new Error('consumer broke')
    },
    { onError: (err) => errors.push(err) }
  )
  const ok = await app.svc.eventLog.follow(null, (events) => {
    healthy.push(...events)
  })
  await create(app, u.headers, ['a', 'b'])
  await eventually(() => healthy.length >= 2)
  await eventually(() => errors.length === 1)
  t.match(errors[0], { message: 'consumer broke' })
  t.equal(failing.closed, true)
  t.equal(ok.closed, false)
  await t.rejects(
    app.svc.eventLog.follow(-1, () => {}),
    TypeError
  )
  ok.close()
})

t.test('one query per batch serves every subscriber of the process', async (t) => {
  const { uri } = await getTestDb(t)
  const client = await new MongoClient(uri, { monitorCommands: true }).connect()
  t.teardown(async () => await client.close())
  let reads = 0
  client.on('commandStarted', (e) => {
    if (e.commandName === 'find' && e.command.find === 'svc_events' && e.command.filter?.seq?.$gt !== undefined) reads++
  })
  const app = await buildLogApp(t, { db: client.db() })
  const u = makeUser()
  const counts = Array.from({ length: 50 }, () => 0)
  const subs = await Promise.all(
    counts.map(
      async (_, i) =>
        await app.svc.eventLog.follow(null, (events) => {
          counts[i] += events.length
        })
    )
  )
  await eventually(() => subs.every((s) => s.position === 0) && reads >= 50)
  const before = reads
  await create(app, u.headers, names('e', 20))
  await eventually(() => counts.every((c) => c === 20))
  const during = reads - before
  t.ok(during < 50, `${during} reads of the log for 20 events × 50 subscribers`)
  for (const s of subs) s.close()
})
