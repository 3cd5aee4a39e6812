import t from 'tap'
import { randomUUID } from 'node:crypto'
import { getTestDb } from '@svc/testkit'
import { buildApp, eventually, makeUser, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

t.test('a restart in the middle of a retry schedule loses nothing', async (t) => {
  const { db } = await getTestDb(t)
  const rx = await startReceiver(t)
  rx.respond(500)
  const user = makeUser()
  const first = await buildApp(t, { db, webhooks: { retrySchedule: [0.3, 0.3, 0.3] } })
  const sub = await subscribe(first.app, user, rx.url)
  await first.app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  await rx.waitFor(1)
  await first.app.close()
  const job = await db.collection('webhook_jobs').findOne({ subscriptionId: sub._id })
  t.match(job, { state: 'pending', attempt: 1 }, 'the retry state is on the row, not in the process')
  rx.respond(200)
  // A new process on the same database picks the schedule up where the old one stopped.
  await buildApp(t, { db, webhooks: { retrySchedule: [0.3, 0.3, 0.3] } })
  const got = await rx.waitFor(2)
  t.equal(got[1].headers['x-svc-delivery'], got[0].headers['x-svc-delivery'], 'the same delivery, retried')
  const done = await eventually(async () => {
    const j = await db.collection('webhook_jobs').findOne({ subscriptionId: sub._id })
    return j?.state === 'delivered' && j
  })
  t.equal(done.attempt, 2)
  t.same(
    (await db.collection('webhook_deliveries').find({ subscriptionId: sub._id }).sort({ attempt: 1 }).toArray()).map(
      (r) => r.status
    ),
    ['failure', 'success']
  )
})

t.test('a lease held by a dead worker is taken over once it runs out', async (t) => {
  const { db } = await getTestDb(t)
  const rx = await startReceiver(t)
  const user = makeUser()
  const { app } = await buildApp(t, { db, webhooks: { leaseMs: 20_000 } })
  const sub = await subscribe(app, user, rx.url)
  // As a worker that claimed the job and died leaves it: lease stamped, due when the lease ends.
  const leaseEnds = Date.now() + 400
  await db.collection('webhook_jobs').insertOne({
    _id: `dead:${sub._id}` as any,
    deliveryId: randomUUID(),
    subscriptionId: sub._id,
    event: { id: 'dead', type: 'webhook.test', version: 'v1', userId: user.userId, subscriptionId: sub._id },
    attempt: 0,
    state: 'pending',
    lease: 'gone',
    dueAt: new Date(leaseEnds),
    createdAt: new Date()
  })
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(rx.received.length, 0, 'not taken while the lease holds')
  const [got] = await rx.waitFor(1)
  t.ok(got.at >= leaseEnds, 'taken over after the lease ended')
})

t.test('two workers on one database deliver each attempt once', async (t) => {
  const { db } = await getTestDb(t)
  const rx = await startReceiver(t)
  const user = makeUser()
  const a = await buildApp(t, { db, webhooks: { concurrency: 4, tenantShare: 1 } })
  const b = await buildApp(t, { db, webhooks: { concurrency: 4, tenantShare: 1 } })
  await subscribe(a.app, user, rx.url, ['logs.*'])
  const N = 150
  const ctx: any = { identity: { kind: 'user', userId: user.userId, roles: ['user'] }, surface: 'graphql' }
  await a.app.svc.services.get('logs').createMany(
    ctx,
    Array.from({ length: N / 2 }, (_, i) => ({ line: `a${i}` }))
  )
  await b.app.svc.services.get('logs').createMany(
    ctx,
    Array.from({ length: N / 2 }, (_, i) => ({ line: `b${i}` }))
  )
  await rx.waitFor(N, 60_000)
  await new Promise((resolve) => setTimeout(resolve, 300))
  // A worker writes an attempt's row after its receiver answered, batched; closing waits for it
  // (a row whose write failed stays missing, and its job is not settled).
  await Promise.all([a.app.close(), b.app.close()])
  const ids = rx.received.map((r) => r.headers['x-svc-delivery'])
  t.equal(rx.received.length, N, 'every event delivered')
  t.equal(new Set(ids).size, N, 'no delivery twice')
  t.equal(new Set(rx.received.map((r) => r.body.recordId)).size, N, 'one per record')
  t.equal(await db.collection('webhook_deliveries').countDocuments(), N, 'one attempt row each')
  t.equal(await db.collection('webhook_jobs').countDocuments({ state: 'delivered' }), N, 'every job settled')
})
