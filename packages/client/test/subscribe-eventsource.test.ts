// The EventSource path of subscribe (what browsers take), run in Node on the `eventsource`
// package: a ticket bought with the bearer, named events, and a reconnect after the service
// restarts. (test/browser.test.ts runs it in Chromium, whose coverage tap cannot see.)
import t from 'tap'
import { EventSource } from 'eventsource'
import { getTestDb, tokenUser } from '@svc/testkit'
import { createClient, type Api } from '../../../examples/client/index.js'
import { isSvcError, type RecordEvent } from '../src/index.js'
import { serveFeed, until } from './feed-server.js'
import { JWT_SECRET } from './helper.js'

const globals = globalThis as { EventSource?: unknown }
globals.EventSource = EventSource
t.teardown(() => {
  delete globals.EventSource
})

t.test('with a global EventSource, subscribe streams through it and reconnects after a restart', async (t) => {
  const { db } = await getTestDb(t)
  const first = await serveFeed(t, db)
  const port = Number(new URL(first.url).port)
  const alice = tokenUser(JWT_SECRET)
  const api: Api = createClient({ baseUrl: first.url, accessToken: alice.headers.authorization.slice(7) })
  const bobApi: Api = createClient({
    baseUrl: first.url,
    accessToken: tokenUser(JWT_SECRET).headers.authorization.slice(7)
  })
  const seen: Array<RecordEvent<{ name?: string }>> = []
  const sub = api.companies.subscribe(
    (e) => {
      seen.push(e)
    },
    { types: ['companies.*'], retryDelayMs: 50 }
  )
  t.teardown(() => {
    sub.close()
  })
  await sub.ready
  const acme = await api.companies.create({ name: 'Acme' })
  await bobApi.companies.create({ name: 'Bob Inc' })
  await api.companies.update(acme._id, { name: 'Acme 2' })
  await until(() => seen.length === 2)
  t.same(
    seen.map((e) => [e.type, e.record?.name]),
    [
      ['companies.created', 'Acme'],
      ['companies.updated', 'Acme 2']
    ],
    "alice's only, by their event names"
  )

  await first.app.close()
  const second = await serveFeed(t, db, port)
  const api2: Api = createClient({ baseUrl: second.url, accessToken: alice.headers.authorization.slice(7) })
  await api2.companies.create({ name: 'after the restart' })
  await until(() => seen.length === 3)
  t.equal(seen[2].record?.name, 'after the restart', 'reconnected with a new ticket and the last cursor')
  t.equal(new Set(seen.map((e) => e.id)).size, 3, 'no event twice')
  sub.close()
  await sub.done
})

t.test('transport "eventsource": a refused ticket is fatal', async (t) => {
  const { db } = await getTestDb(t)
  const { url } = await serveFeed(t, db)
  const anon: Api = createClient({ baseUrl: url })
  const refused = anon.deals.subscribe(() => {}, { transport: 'eventsource' })
  await refused.done.then(
    () => t.fail('resolved'),
    (err) => {
      t.ok(isSvcError(err, 'UNAUTHENTICATED'), 'no bearer, no ticket')
    }
  )
})
