import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { getTestDb } from '@svc/testkit'
import { buildApp, call, makeUser, sleep, stream } from './helper.js'

// CONTRACT "Realtime" browser tickets: single use, 60 s, bound to the caller's identity.

async function mint (
  b: Awaited<ReturnType<typeof buildApp>>,
  headers: Record<string, string>
): Promise<{ ticket: string; expiresAt: string }> {
  const res = await b.app.inject({ method: 'POST', url: '/api/v1/_events/tickets', headers })
  if (res.statusCode !== 200) throw new Error(`ticket: ${res.statusCode} ${res.body}`)
  return res.json()
}

t.test('a ticket opens one stream as its owner, once', async (t) => {
  const b = await buildApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const { ticket, expiresAt } = await mint(b, alice.headers)
  t.match(ticket, /^[A-Za-z0-9_-]{43}$/)
  const ttl = Date.parse(expiresAt) - Date.now()
  t.ok(ttl > 55_000 && ttl <= 60_000, `valid 60 s (${ttl} ms left)`)
  const conn = await stream(t, b, {}, `ticket=${ticket}&types=contacts.*`)
  t.equal(conn.status, 200)
  await call(b.app, 'POST', '/api/v1/contacts', bob.headers, { name: 'bob' })
  await call(b.app, 'POST', '/api/v1/contacts', alice.headers, { name: 'alice' })
  await conn.waitFor(1)
  await sleep(100)
  t.same(
    conn.events().map((e) => e.data.record.name),
    ['alice'],
    "the stream is the ticket owner's"
  )
  const again = await stream(t, b, {}, `ticket=${ticket}`)
  t.equal(again.status, 401, 'a used ticket is refused')
  t.equal(again.body.error.code, 'UNAUTHENTICATED')
})

t.test('a ticket shown by another identity is refused and used up', async (t) => {
  const b = await buildApp(t)
  const alice = makeUser()
  const mallory = makeUser()
  const stolen = await mint(b, alice.headers)
  const res = await stream(t, b, mallory.headers, `ticket=${stolen.ticket}`)
  t.equal(res.status, 401, 'another bearer with the ticket')
  t.match(res.body.error.message, /another identity/)
  t.equal((await stream(t, b, {}, `ticket=${stolen.ticket}`)).status, 401, 'the ticket is gone after that')
  const elevated = makeUser({ user_id: alice.userId, roles: ['user', 'hr'] })
  const own = await mint(b, alice.headers)
  t.equal(
    (await stream(t, b, elevated.headers, `ticket=${own.ticket}`)).status,
    401,
    'the same tenant with other roles is another identity'
  )
  const same = await mint(b, alice.headers)
  t.equal((await stream(t, b, alice.headers, `ticket=${same.ticket}`)).status, 200, 'the same identity may send both')
})

t.test('an expired ticket is refused', async (t) => {
  const b = await buildApp(t, { realtime: { ticketTtlSeconds: 0.2 } })
  const u = makeUser()
  const { ticket } = await mint(b, u.headers)
  await sleep(400)
  const res = await stream(t, b, {}, `ticket=${ticket}`)
  t.equal(res.status, 401)
  t.match(res.body.error.message, /expired/)
})

t.test('tickets are for bearers: none without one, none for api clients', async (t) => {
  const b = await buildApp(t)
  const clients = new ApiClientStore(b.app.svc.db)
  const client = { 'x-client-id': (await clients.create({ role: 'storefront' }))._id }
  const anon = await b.app.inject({ method: 'POST', url: '/api/v1/_events/tickets' })
  t.equal(anon.statusCode, 401)
  t.equal(anon.json().error.code, 'UNAUTHENTICATED')
  const byClient = await b.app.inject({ method: 'POST', url: '/api/v1/_events/tickets', headers: client })
  t.equal(byClient.statusCode, 403)
  t.equal(byClient.json().error.code, 'FORBIDDEN')
  const stored = await b.app.svc.db.collection('svc_realtime_tickets').findOne({})
  t.equal(stored, null, 'nothing was stored')
  const { ticket } = await mint(b, makeUser().headers)
  const doc = await b.app.svc.db.collection('svc_realtime_tickets').findOne({})
  t.not(doc?._id, ticket, 'only a hash of the ticket is stored')
})

t.test('two uses racing: one wins', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const { ticket } = await mint(b, u.headers)
  const [x, y] = await Promise.all([stream(t, b, {}, `ticket=${ticket}`), stream(t, b, {}, `ticket=${ticket}`)])
  t.same([x.status, y.status].sort(), [200, 401])
})

t.test('a ticket minted on one instance opens a stream on another, once', async (t) => {
  const { db } = await getTestDb(t)
  const a = await buildApp(t, { db })
  const b = await buildApp(t, { db })
  const u = makeUser()
  const { ticket } = await mint(a, u.headers)
  const conn = await stream(t, b, {}, `ticket=${ticket}&types=logs.*`)
  t.equal(conn.status, 200, 'minted on one, shown to the other')
  await call(a.app, 'POST', '/api/v1/logs', u.headers, { line: 'via a' })
  const [e] = await conn.waitFor(1)
  t.equal(e.data.userId, u.userId, "the stream is the ticket owner's")
  const again = await stream(t, a, {}, `ticket=${ticket}`)
  t.equal(again.status, 401, 'used up on every instance')
})
