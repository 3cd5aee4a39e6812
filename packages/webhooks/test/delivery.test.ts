import { createHmac, timingSafeEqual } from 'node:crypto'
import t from 'tap'
import { buildApp, eventually, makeUser, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

// Schedule of 3 retries: 0.1 s, 0.2 s, 0.4 s.
const { app, db } = await buildApp(t, { webhooks: { retrySchedule: [0.1, 0.2, 0.4] } })
const user = makeUser()

/** An independent verifier, as a receiver would write it: HMAC of the raw bytes, timing-safe compare. */
function verified (secret: string, raw: Buffer, header: unknown): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`)
  const got = Buffer.from(String(header))
  return got.length === expected.length && timingSafeEqual(got, expected)
}

async function deliveries (subId: string): Promise<any[]> {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/webhooks/${subId}/deliveries?__perPage=100`,
    headers: user.headers
  })
  return res.json().results
}

t.test('webhook.test: signed body, headers, one attempt row, lastDeliveryAt', async (t) => {
  const rx = await startReceiver(t)
  const sub = await subscribe(app, user, rx.url)
  const res = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  t.equal(res.statusCode, 202, 'POST /webhooks/:id/test')
  const { deliveryId } = res.json()
  const [got] = await rx.waitFor(1)
  t.ok(verified(sub.secret, got.raw, got.headers['x-svc-signature']), 'signature verifies over the raw body')
  t.notOk(verified('0'.repeat(64), got.raw, got.headers['x-svc-signature']), 'and not with another secret')
  t.equal(got.headers['x-svc-event'], 'webhook.test')
  t.equal(got.headers['x-svc-delivery'], deliveryId, 'X-svc-Delivery is the answered id')
  t.match(got.headers['x-svc-delivery'], /^[0-9a-f-]{36}$/, 'a UUID')
  t.equal(got.headers['content-type'], 'application/json')
  t.same(
    Object.keys(got.body).sort(),
    ['deliveredAt', 'id', 'subscriptionId', 'type', 'userId', 'version'],
    'CONTRACT webhook.test body'
  )
  t.match(got.body, { type: 'webhook.test', version: 'v1', userId: user.userId, subscriptionId: sub._id })
  const rows = await eventually(async () => {
    const r = await deliveries(sub._id)
    return r.length === 1 && r
  })
  t.match(rows[0], {
    subscriptionId: sub._id,
    deliveryId,
    event: 'webhook.test',
    attempt: 1,
    status: 'success',
    responseCode: 200,
    error: null
  })
  t.type(rows[0].durationMs, 'number')
  const after = await eventually(async () => {
    const s = (await app.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: user.headers })).json()
    return s.lastDeliveryAt !== null && s
  })
  t.equal(after.failureCount, 0)
})

t.test('failures are retried on the schedule with the same delivery id, then given up', async (t) => {
  const rx = await startReceiver(t)
  rx.respond(500)
  const sub = await subscribe(app, user, rx.url)
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  const got = await rx.waitFor(4)
  t.equal(new Set(got.map((g) => g.headers['x-svc-delivery'])).size, 1, 'one delivery id across retries')
  const gaps = got.slice(1).map((g, i) => g.at - got[i].at)
  t.ok(gaps[0] >= 90 && gaps[1] >= 190 && gaps[2] >= 390, `gaps follow 0.1 s, 0.2 s, 0.4 s (got ${gaps.join(', ')} ms)`)
  t.ok(
    got.every((g) => verified(sub.secret, g.raw, g.headers['x-svc-signature'])),
    'every retry signed afresh'
  )
  await new Promise((resolve) => setTimeout(resolve, 600))
  t.equal(rx.received.length, 4, 'no attempt after the schedule ends')
  const rows = await deliveries(sub._id)
  t.same(
    rows.map((r) => r.attempt),
    [4, 3, 2, 1],
    'one row per attempt, newest first'
  )
  t.ok(rows.every((r) => r.status === 'failure' && r.responseCode === 500 && r.error === 'HTTP 500'))
  const s = (await app.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: user.headers })).json()
  t.match(s, { failureCount: 4, active: true, lastDeliveryAt: null })
})

t.test('a retry that succeeds resets failureCount', async (t) => {
  const rx = await startReceiver(t)
  rx.respond((r) => (rx.received.indexOf(r) < 2 ? 503 : 204))
  const sub = await subscribe(app, user, rx.url)
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  await rx.waitFor(3)
  const s = await eventually(async () => {
    const v = (await app.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: user.headers })).json()
    return v.lastDeliveryAt !== null && v
  })
  t.equal(s.failureCount, 0)
  const rows = await deliveries(sub._id)
  t.same(
    rows.map((r) => r.status),
    ['success', 'failure', 'failure']
  )
})

t.test('redirects are not followed: a 3xx is a failure', async (t) => {
  const rx = await startReceiver(t)
  const target = await startReceiver(t)
  rx.respond(302)
  const sub = await subscribe(app, user, rx.url)
  await db.collection('webhook_subscriptions').updateOne({ _id: sub._id as any }, { $set: { failureCount: 0 } })
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  await rx.waitFor(1)
  const rows = await eventually(async () => {
    const r = await deliveries(sub._id)
    return r.length > 0 && r
  })
  t.match(rows[0], { status: 'failure', responseCode: 302 })
  t.equal(target.received.length, 0)
})

t.test('network errors and timeouts are failures', async (t) => {
  // Its own database: the file's other app would claim the jobs with its 10 s timeout.
  const { app: slowApp, db: slowDb } = await buildApp(t, {
    webhooks: { retrySchedule: [], timeoutMs: 200, leaseMs: 5000 }
  })
  const rx = await startReceiver(t)
  rx.respond(() => 200)
  // A receiver that never answers: the 200 ms timeout fails the attempt.
  const { createServer } = await import('node:http')
  const hang = createServer(() => {})
  await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    hang.closeAllConnections()
    hang.close()
  })
  const port = (hang.address() as { port: number }).port
  const slow = await subscribe(slowApp, user, `http://127.0.0.1:${port}/`)
  const dead = await subscribe(slowApp, user, 'http://127.0.0.1:1/nothing-listens')
  await slowApp.inject({ method: 'POST', url: `/api/v1/webhooks/${slow._id}/test`, headers: user.headers })
  await slowApp.inject({ method: 'POST', url: `/api/v1/webhooks/${dead._id}/test`, headers: user.headers })
  const a = await eventually(
    async () => (await slowDb.collection('webhook_deliveries').findOne({ subscriptionId: slow._id })) ?? undefined
  )
  const b = await eventually(
    async () => (await slowDb.collection('webhook_deliveries').findOne({ subscriptionId: dead._id })) ?? undefined
  )
  t.match(a, { status: 'failure', responseCode: null })
  t.ok(a.durationMs >= 150 && a.durationMs < 5000, `timed out near 200 ms (${a.durationMs})`)
  t.match(b, { status: 'failure', responseCode: null, error: /ECONNREFUSED/ })
})

t.test('10 consecutive failures disable; PATCH { active: true } re-enables', async (t) => {
  // A schedule longer than 10 attempts, one event: the 10th consecutive failure disables.
  const { app: app2 } = await buildApp(t, { webhooks: { retrySchedule: Array(12).fill(0.02) } })
  const rx = await startReceiver(t)
  rx.respond(500)
  const sub = await subscribe(app2, user, rx.url)
  await app2.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  const off = await eventually(async () => {
    const s = (await app2.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: user.headers })).json()
    return s.active === false && s
  })
  t.ok(off.failureCount >= 10, 'failureCount reached 10')
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(rx.received.length, 10, 'no attempt after the subscription was disabled')
  rx.respond(200)
  const on = await app2.inject({
    method: 'PATCH',
    url: `/api/v1/webhooks/${sub._id}`,
    headers: user.headers,
    payload: { active: true }
  })
  t.match(on.json(), { active: true, failureCount: 0 })
  await app2.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  await rx.waitFor(11)
  t.equal(rx.received[10].body.type, 'webhook.test', 'delivered again once re-enabled')
})
