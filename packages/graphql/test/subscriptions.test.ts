import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import WebSocket from 'ws'
import { createClient, type Client } from 'graphql-ws'
import svcCore from '@svc/core'
import svcSoftDelete from '@svc/softdelete'
import svcRealtime, { type RealtimeOptions } from '@svc/realtime'
import { getTestDb, tokenUser, type Teardownable, type TokenUser } from '@svc/testkit'
import svcGraphql from '../src/index.js'

// CONTRACT "Realtime" GraphQL row: per-schema subscriptions over graphql-ws, typed records, the
// feed's scope, ACL and limits (the same per-tenant stream slots as SSE).

const JWT_SECRET = 'graphql-subscriptions-secret-0123456789'
const schemas = [
  {
    path: 'contacts',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'salary', type: Number, acl: { read: ['hr'] } },
      { name: 'companyId', type: String }
    ],
    relations: { company: { belongsTo: 'companies', fk: 'companyId' } }
  },
  { path: 'companies', fields: [{ name: 'name', type: String }] }
]

async function build (t: Teardownable, realtime: RealtimeOptions = {}): Promise<{ app: FastifyInstance; url: string }> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas,
    eventLog: { pollMs: 20, leaseMs: 1500 }
  })
  await app.register(svcSoftDelete, { sweepIntervalMs: 0 })
  await app.register(svcRealtime, realtime)
  await app.register(svcGraphql)
  t.teardown(async () => await app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: base.replace('http', 'ws') + '/graphql' }
}

function client (t: Teardownable, url: string, params?: Record<string, unknown>): Client {
  const c = createClient({
    url,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    ...(params !== undefined ? { connectionParams: params } : {})
  })
  t.teardown(async () => {
    await c.dispose()
  })
  return c
}

interface Received {
  events: any[]
  errors: any[]
  done: boolean
  waitFor: (n: number) => Promise<any[]>
  stop: () => void
}

function subscribe (c: Client, query: string, variables?: Record<string, unknown>): Received {
  const r: Received = { events: [], errors: [], done: false, waitFor: async () => [], stop: () => {} }
  r.stop = c.subscribe(
    { query, ...(variables !== undefined ? { variables } : {}) },
    {
      next: (v) => {
        if (v.errors !== undefined) r.errors.push(...v.errors)
        else r.events.push(Object.values(v.data ?? {})[0])
      },
      error: (e) => {
        r.errors.push(...(Array.isArray(e) ? e : [e]))
        r.done = true
      },
      complete: () => {
        r.done = true
      }
    }
  )
  r.waitFor = async (n) => {
    const deadline = Date.now() + 10_000
    while (r.events.length < n && r.errors.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    if (r.events.length < n) throw new Error(`${r.events.length} of ${n} events; errors ${JSON.stringify(r.errors)}`)
    return r.events
  }
  return r
}

async function settled (r: Received): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!r.done && r.errors.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const auth = (u: TokenUser): Record<string, string> => ({ authorization: u.headers.authorization })
const CONTACT_EVENTS =
  'subscription($types: [String!], $after: String) { contactsEvents(types: $types, lastEventId: $after) { cursor id type userId recordId record { _id name salary deletedAt } at } }'

/** Waits until the feed has the subscription (it answers nothing on its own): a write must then arrive. */
async function live (app: FastifyInstance, user: TokenUser, r: Received): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await app.inject({ method: 'POST', url: '/api/v1/companies', headers: user.headers, payload: { name: 'probe' } })
    if (r.events.length > 0 || r.errors.length > 0) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

t.test("typed events of the caller's tenant, projected for the subscriber, in order", async (t) => {
  const { app, url } = await build(t)
  const alice = makeUserPair()
  const bob = tokenUser(JWT_SECRET)
  const plain = subscribe(client(t, url, auth(alice.plain)), CONTACT_EVENTS)
  const hr = subscribe(client(t, url, auth(alice.hr)), CONTACT_EVENTS)
  const probe = subscribe(client(t, url, auth(alice.plain)), 'subscription { companiesEvents { type } }')
  await live(app, alice.plain, probe)
  await new Promise((resolve) => setTimeout(resolve, 100))
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts',
    headers: alice.hr.headers,
    payload: { name: 'Ada', salary: 10 }
  })
  await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: bob.headers, payload: { name: 'Bob' } })
  await app.inject({
    method: 'DELETE',
    url: `/api/v1/contacts/${res.json()._id as string}`,
    headers: alice.plain.headers
  })
  const [created, deleted] = await plain.waitFor(2)
  const [hrCreated] = await hr.waitFor(1)
  t.equal(created.type, 'contacts.created')
  t.equal(created.record.name, 'Ada')
  t.equal(created.record.salary, null, 'salary hidden from a reader without hr')
  t.equal(hrCreated.record.salary, 10, 'hr reads it')
  t.equal(created.userId, alice.plain.userId)
  t.equal(deleted.type, 'contacts.deleted')
  t.ok(deleted.record.deletedAt, 'the tombstone')
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(plain.events.length, 2, "bob's record never reached alice")
  t.ok(
    plain.events[0].cursor < plain.events[1].cursor || plain.events[0].cursor !== plain.events[1].cursor,
    'each event has its cursor'
  )

  // Resume after the first event: the second comes again, once.
  const resumed = subscribe(client(t, url, auth(alice.plain)), CONTACT_EVENTS, { after: created.cursor })
  const [again] = await resumed.waitFor(1)
  t.equal(again.id, deleted.id)
  const m = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  t.same(m.schemas.find((s: any) => s.path === 'contacts').endpoints.graphql.subscriptions, ['contactsEvents'])
})

function makeUserPair (): { plain: TokenUser; hr: TokenUser } {
  const plain = tokenUser(JWT_SECRET)
  return { plain, hr: tokenUser(JWT_SECRET, { user_id: plain.userId, roles: ['user', 'hr'] }) }
}

t.test("refusals carry the service's codes", async (t) => {
  const { url } = await build(t, { maxStreamsPerUser: 1 })
  const u = tokenUser(JWT_SECRET)
  const cases: Array<[string, Client, string, Record<string, unknown> | undefined, string]> = [
    ['anonymous', client(t, url), CONTACT_EVENTS, undefined, 'UNAUTHENTICATED'],
    ["another schema's type", client(t, url, auth(u)), CONTACT_EVENTS, { types: ['companies.created'] }, 'VALIDATION'],
    ['not a record event', client(t, url, auth(u)), CONTACT_EVENTS, { types: ['restored'] }, 'VALIDATION'],
    [
      'an altered cursor',
      client(t, url, auth(u)),
      CONTACT_EVENTS,
      { after: 'AQAAAAAAAAABxxxxxxxxxxxxxxxx' },
      'VALIDATION'
    ],
    [
      'a relation (no query per event)',
      client(t, url, auth(u)),
      'subscription { contactsEvents { record { company { name } } } }',
      undefined,
      'VALIDATION'
    ]
  ]
  for (const [what, c, query, variables, code] of cases) {
    const r = subscribe(c, query, variables)
    await settled(r)
    t.equal(r.errors[0]?.extensions?.code, code, `${what}: ${code} (${JSON.stringify(r.errors[0])})`)
  }
  // The tenant's one stream slot: a second subscription (SSE or GraphQL) is refused.
  const first = subscribe(client(t, url, auth(u)), CONTACT_EVENTS)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const second = subscribe(client(t, url, auth(u)), CONTACT_EVENTS)
  await settled(second)
  t.equal(second.errors[0]?.extensions?.code, 'RATE_LIMITED', 'REALTIME_MAX_STREAMS_PER_USER counts subscriptions')
  t.equal(first.errors.length, 0)
  first.stop()
  await new Promise((resolve) => setTimeout(resolve, 300))
  const third = subscribe(client(t, url, auth(u)), CONTACT_EVENTS)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(third.errors.length, 0, 'a stopped subscription frees its slot')
})

t.test("credentials: nested connection_init headers, the upgrade request's headers, api clients", async (t) => {
  const { app, url } = await build(t)
  const u = tokenUser(JWT_SECRET)
  const nested = subscribe(client(t, url, { headers: { Authorization: u.headers.authorization } }), CONTACT_EVENTS)
  const headers = u.headers
  class WithHeaders extends WebSocket {
    constructor (address: string, protocols?: string | string[]) {
      super(address, protocols, { headers })
    }
  }
  const upgraded = createClient({ url, webSocketImpl: WithHeaders, retryAttempts: 0, lazy: true })
  t.teardown(async () => {
    await upgraded.dispose()
  })
  const viaUpgrade = subscribe(upgraded, CONTACT_EVENTS)
  await new Promise((resolve) => setTimeout(resolve, 300))
  await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: u.headers, payload: { name: 'x' } })
  await nested.waitFor(1)
  await viaUpgrade.waitFor(1)
  t.pass('both authenticated as the user')
  const { ApiClientStore } = await import('@svc/core/kit')
  const id = (await new ApiClientStore(app.svc.db).create({ role: 'storefront' }))._id
  const closed = subscribe(client(t, url, { 'x-client-id': id }), CONTACT_EVENTS)
  await settled(closed)
  t.equal(closed.errors[0]?.extensions?.code, 'FORBIDDEN', 'a schema without a scope for the client')
})

t.test('bad credentials in connection_init refuse the connection', async (t) => {
  const { url } = await build(t)
  const r = subscribe(client(t, url, { authorization: 'Bearer not.a.token' }), CONTACT_EVENTS)
  await settled(r)
  t.ok(r.done || r.errors.length > 0, 'refused')
  t.equal(r.events.length, 0)
})

t.test('a subscriber whose socket never reads is dropped, not buffered; its slot comes back', async (t) => {
  const { app, url } = await build(t, { maxStreamsPerUser: 1 })
  const u = tokenUser(JWT_SECRET)
  // graphql-transport-ws by hand, to stop reading the socket (ws.pause()).
  const ws = new WebSocket(url, 'graphql-transport-ws')
  t.teardown(() => {
    ws.terminate()
  })
  const got: any[] = []
  // An object: the loops below wait for a flag only the socket's callback sets.
  const conn = { closed: false }
  ws.on('message', (m) => got.push(JSON.parse(String(m))))
  ws.on('close', () => {
    conn.closed = true
  })
  ws.on('error', () => {})
  await new Promise((resolve) => ws.once('open', resolve))
  ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: u.headers.authorization } }))
  ws.send(
    JSON.stringify({
      id: '1',
      type: 'subscribe',
      payload: { query: 'subscription { contactsEvents { record { name } } }' }
    })
  )
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'graphql' as const }
  const contacts = app.svc.services.get('contacts')
  for (let i = 0; i < 200 && !got.some((m) => m.type === 'next'); i++) {
    await contacts.create(ctx, { name: 'probe' })
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.ok(
    got.some((m) => m.type === 'next'),
    'the subscription is live'
  )
  // Whether the subscription still holds the tenant's one stream slot, asked of the server.
  const realtime = app.svc.realtime
  if (realtime === undefined) throw new Error('@svc/realtime is registered in build()')
  const holds = async (): Promise<boolean> => {
    try {
      const probe = await realtime.open(
        ctx,
        { types: ['companies.*'] },
        { deliver: () => {}, reset: () => {}, room: async () => {}, end: () => {} }
      )
      probe.close()
      return false
    } catch (err) {
      if ((err as { code?: string }).code === 'RATE_LIMITED') return true
      throw err
    }
  }
  t.ok(await holds(), 'it holds the slot')
  ws.pause()
  const big = 'x'.repeat(20_000)
  let written = 0
  while (written < 4000 && (await holds())) {
    await contacts.createMany(
      ctx,
      Array.from({ length: 100 }, () => ({ name: big }))
    )
    written += 100
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  for (let i = 0; i < 100 && (await holds()); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(await holds(), `the server dropped the subscription (${written} events of 20 kB written, unread)`)
  t.ok(written < 4000, 'before the writer ran out: what it buffers is bounded')
  ws.resume()
  for (let i = 0; i < 200 && !conn.closed; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(conn.closed, 'the client finds its connection closed once it reads again')
  const again = subscribe(client(t, url, auth(u)), 'subscription { companiesEvents { type } }')
  await live(app, u, again)
  t.same(again.errors, [], 'a new subscription gets the slot')
  t.ok(again.events.length > 0)
})
