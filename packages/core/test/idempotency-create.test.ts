import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'

const schemas = [
  {
    path: 'orders',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'qty', type: Number, default: 1 },
      { name: 'meta', type: 'Mixed' }
    ],
    compositeIndex: [{ userId: 1, name: 1 }]
  }
]

async function post (
  app: FastifyInstance,
  u: TestUser,
  payload: unknown,
  key?: string
): Promise<{ status: number; body: any; replayed: boolean }> {
  const headers: Record<string, string> = { ...u.headers }
  if (key !== undefined) headers['idempotency-key'] = key
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers,
    payload: payload as Record<string, unknown>
  })
  return { status: res.statusCode, body: res.json(), replayed: res.headers['idempotent-replayed'] === 'true' }
}

const count = async (app: FastifyInstance, filter: Record<string, unknown> = {}): Promise<number> =>
  await app.svc.db.collection('orders').countDocuments(filter)

t.test('a replay answers the first response and creates nothing', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const first = await post(app, u, { name: 'a', qty: 2, meta: { x: 1, y: 2 } }, 'key-1')
  t.equal(first.status, 201)
  t.equal(first.replayed, false)
  const again = await post(app, u, { meta: { y: 2, x: 1 }, qty: 2, name: 'a' }, 'key-1')
  t.equal(again.status, 201, 'same status')
  t.same(again.body, first.body, 'same record (key order of the body does not matter)')
  t.equal(again.replayed, true, 'marked as a replay')
  t.equal(await count(app), 1, 'no second record')
  const other = await post(app, u, { name: 'b' }, 'key-2')
  t.equal(other.status, 201, 'another key creates')
  t.equal(await count(app), 2)
  const plain = await post(app, u, { name: 'c' })
  t.equal(plain.status, 201, 'no key: a plain create')
})

t.test('the same key with another body is 409 CONFLICT', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  t.equal((await post(app, u, { name: 'a' }, 'k')).status, 201)
  const res = await post(app, u, { name: 'a', qty: 3 }, 'k')
  t.equal(res.status, 409)
  t.equal(res.body.error.code, 'CONFLICT')
  t.equal(res.body.error.details.field, 'Idempotency-Key')
  t.equal(await count(app), 1)
})

t.test('keys are per tenant: another tenant reusing a key gets its own record, never the first', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const alice = makeUser()
  const bob = makeUser()
  const a = await post(app, alice, { name: 'secret' }, 'shared-key')
  const b = await post(app, bob, { name: 'secret' }, 'shared-key')
  t.equal(b.status, 201)
  t.equal(b.replayed, false, "not a replay of alice's request")
  t.not(b.body._id, a.body._id)
  t.equal(b.body.userId, bob.userId)
  const b2 = await post(app, bob, { name: 'other' }, 'shared-key')
  t.equal(b2.status, 409, "bob's key now holds bob's body")
  t.equal(await count(app, { userId: alice.userId }), 1)
  t.equal(await count(app, { userId: bob.userId }), 1)
})

t.test('50 parallel creates with one key produce exactly one record', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const results = await Promise.all(
    Array.from({ length: 50 }, async () => await post(app, u, { name: 'race' }, 'race-key'))
  )
  t.equal(await count(app), 1, 'one record')
  const ok = results.filter((r) => r.status === 201)
  t.ok(
    results.every((r) => r.status === 201 || (r.status === 409 && /in progress/.test(r.body.error.message))),
    'every answer is the record or "in progress"'
  )
  t.ok(ok.length >= 1)
  t.equal(new Set(ok.map((r) => r.body._id)).size, 1, 'every success names the same record')
  t.equal(ok.filter((r) => !r.replayed).length, 1, 'exactly one request created it')
})

t.test('a failed create releases the key so a retry can succeed', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const blocker = await post(app, u, { name: 'dup' })
  const failed = await post(app, u, { name: 'dup' }, 'retry-key')
  t.equal(failed.status, 409, 'the create itself fails (unique name)')
  t.equal(failed.body.error.details.keys[0], 'name', 'with the record conflict, not a key conflict')
  await app.inject({ method: 'DELETE', url: `/api/v1/orders/${blocker.body._id as string}`, headers: u.headers })
  const retry = await post(app, u, { name: 'dup' }, 'retry-key')
  t.equal(retry.status, 201, 'the retry with the same key creates')
  t.equal(retry.replayed, false)
})

t.test('malformed keys are 400 VALIDATION', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  for (const key of ['', 'has space', 'x'.repeat(256), 'caf\u00e9']) {
    const headers: Record<string, string> = { ...u.headers, 'idempotency-key': key }
    const res = await app.inject({ method: 'POST', url: '/api/v1/orders', headers, payload: { name: 'a' } })
    t.equal(res.statusCode, 400, `key ${JSON.stringify(key.slice(0, 20))}`)
    t.equal(res.json().error.details.field, 'Idempotency-Key')
  }
  t.equal((await post(app, u, { name: 'a' }, 'x'.repeat(255))).status, 201, '255 characters is fine')
  t.equal(await count(app), 1)
})

t.test('a stale claim is taken over with the same record id; a live one is waited for', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const keys = app.svc.db.collection('idempotency_keys')
  const first = await post(app, u, { name: 'a' }, 'stale')
  {
    // The first request "crashed" after inserting: the claim is pending with an expired lease.
    await keys.updateOne(
      { key: 'stale' },
      { $set: { state: 'pending', leaseUntil: new Date(Date.now() - 1000) }, $unset: { response: '' } }
    )
    const res = await post(app, u, { name: 'a' }, 'stale')
    t.equal(res.status, 201)
    t.equal(res.body._id, first.body._id, 'the takeover finds the record the claim reserved')
    t.equal(await count(app), 1)
  }
  {
    // Crashed before inserting: the takeover creates it, under the reserved id.
    await app.svc.db.collection('orders').deleteMany({})
    await keys.updateOne(
      { key: 'stale' },
      { $set: { state: 'pending', leaseUntil: new Date(Date.now() - 1000) }, $unset: { response: '' } }
    )
    const res = await post(app, u, { name: 'a' }, 'stale')
    t.equal(res.status, 201)
    t.equal(res.body._id, first.body._id, 'created with the reserved id')
    t.equal(await count(app), 1)
  }
  {
    // Still being worked on elsewhere: the duplicate polls and answers once the first completes.
    await keys.updateOne(
      { key: 'stale' },
      { $set: { state: 'pending', leaseUntil: new Date(Date.now() + 20_000) }, $unset: { response: '' } }
    )
    const waiting = post(app, u, { name: 'a' }, 'stale')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await keys.updateOne({ key: 'stale' }, { $set: { state: 'done', status: 201, response: first.body } })
    const res = await waiting
    t.equal(res.status, 201)
    t.equal(res.replayed, true)
    t.same(res.body, first.body)
  }
  {
    await keys.updateOne(
      { key: 'stale' },
      { $set: { state: 'pending', leaseUntil: new Date(Date.now() + 60_000) }, $unset: { response: '' } }
    )
    const res = await post(app, u, { name: 'a' }, 'stale')
    t.equal(res.status, 409, 'a claim still in progress after the wait is 409')
    t.match(res.body.error.message, /in progress/)
  }
})

t.test('the key store has its unique and TTL indexes', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const ix = await app.svc.db.collection('idempotency_keys').listIndexes().toArray()
  t.match(
    ix.find((i) => i.name === 'svc_idempotency_key'),
    { unique: true, key: { userId: 1, path: 1, key: 1 } }
  )
  t.match(
    ix.find((i) => i.name === 'svc_idempotency_ttl'),
    { expireAfterSeconds: 0, key: { expiresAt: 1 } }
  )
  const u = makeUser()
  await post(app, u, { name: 'a' }, 'ttl')
  const row = await app.svc.db.collection('idempotency_keys').findOne({ key: 'ttl' })
  const hours = ((row!.expiresAt as Date).getTime() - Date.now()) / 3_600_000
  t.ok(hours > 23.9 && hours <= 24, 'expires 24 h after the first request')
})
