// api.<resource>.subscribe on the checked-in CRM client against a live realtime feed: typed
// events, tenant isolation, and resuming exactly once and in order after the service restarts.
import t from 'tap'
import { getTestDb, tokenUser } from '@svc/testkit'
import { createClient, type Api } from '../../../examples/client/index.js'
import { isSvcError, type RecordEvent } from '../src/index.js'
import { serveFeed, until } from './feed-server.js'
import { JWT_SECRET } from './helper.js'

t.test('subscribe: typed events of the caller, resumed exactly once and in order across a restart', async (t) => {
  const { db } = await getTestDb(t)
  const first = await serveFeed(t, db)
  const port = Number(new URL(first.url).port)
  const alice = tokenUser(JWT_SECRET)
  const bob = tokenUser(JWT_SECRET)
  const api: Api = createClient({ baseUrl: first.url, accessToken: alice.headers.authorization.slice(7) })
  const bobApi: Api = createClient({ baseUrl: first.url, accessToken: bob.headers.authorization.slice(7) })
  const seen: Array<RecordEvent<{ name?: string }>> = []
  const disconnects: unknown[] = []
  const states: string[] = []
  const sub = api.companies.subscribe(
    async (e) => {
      // Handlers run one at a time: a slow one holds the next event back, never reorders it.
      await new Promise((resolve) => setTimeout(resolve, 5))
      seen.push(e)
    },
    {
      types: ['created', 'companies.updated'],
      retryDelayMs: 50,
      onConnect: () => {
        states.push('connected')
      },
      onDisconnect: (err) => {
        disconnects.push(err)
        states.push('disconnected')
      }
    }
  )
  t.teardown(() => {
    sub.close()
  })
  await sub.ready
  const acme = await api.companies.create({ name: 'Acme' })
  await bobApi.companies.create({ name: 'Bob Inc' })
  await api.companies.update(acme._id, { name: 'Acme 2' })
  await api.companies.delete(acme._id)
  await api.companies.create({ name: 'last before restart' })
  await until(() => seen.length === 3)
  t.same(
    seen.map((e) => [e.type, e.record?.name]),
    [
      ['companies.created', 'Acme'],
      ['companies.updated', 'Acme 2'],
      ['companies.created', 'last before restart']
    ],
    "typed, filtered, alice's only"
  )
  t.equal(sub.lastEventId, seen[2].cursor, 'the cursor of the last event handled')

  await first.app.close()
  const second = await serveFeed(t, db, port)
  const api2: Api = createClient({ baseUrl: second.url, accessToken: alice.headers.authorization.slice(7) })
  for (let i = 0; i < 5; i++) await api2.companies.create({ name: `while away ${i}` })
  await until(() => seen.length === 8)
  await api2.companies.create({ name: 'live again' })
  await until(() => seen.length === 9)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.same(
    seen.slice(3).map((e) => e.record?.name),
    ['while away 0', 'while away 1', 'while away 2', 'while away 3', 'while away 4', 'live again'],
    'resumed once, in order'
  )
  t.equal(new Set(seen.map((e) => e.id)).size, 9, 'no event twice')
  t.ok(disconnects.length >= 1, 'the restart was seen as a disconnect')
  t.equal(states[0], 'connected', 'the first stream opening was heard')
  t.equal(states.at(-1), 'connected', 'so was the stream after the restart')
  t.ok(states.includes('disconnected'), 'in between, the restart')
  sub.close()
  await sub.done
})

t.test("subscribe: fatal answers stop it; another resource's type is refused at once", async (t) => {
  const { db } = await getTestDb(t)
  const { url } = await serveFeed(t, db)
  const api: Api = createClient({ baseUrl: url, accessToken: tokenUser(JWT_SECRET).headers.authorization.slice(7) })
  const bad = api.deals.subscribe(() => {}, { lastEventId: 'not-a-cursor' })
  await bad.done.then(
    () => t.fail('resolved'),
    (err) => {
      t.ok(isSvcError(err, 'VALIDATION'), 'an altered cursor is fatal, not retried')
    }
  )
  const anon: Api = createClient({ baseUrl: url })
  const refused = anon.deals.subscribe(() => {})
  await refused.done.then(
    () => t.fail('resolved'),
    (err) => {
      t.ok(isSvcError(err, 'UNAUTHENTICATED'))
    }
  )
  t.throws(() => api.deals.subscribe(() => {}, { types: ['contacts.created' as never] }), /not an event of deals/)
  const failing = api.deals.subscribe(() => {
    throw new Error('handler bug')
  })
  await failing.ready
  await api.deals.create({ title: 'x', amount: 1 })
  await failing.done.then(
    () => t.fail('resolved'),
    (err) => {
      t.match(err, { message: 'handler bug' }, 'a throwing handler ends the subscription with its error')
    }
  )
})
