import t from 'tap'
import { buildApp, makeUser, subscribe } from './helper.js'

const { app, db } = await buildApp(t)
const alice = makeUser()
const bob = makeUser()
const URL_A = 'http://127.0.0.1:9/hook'

t.test('create answers the record with its secret once; reads omit it', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: alice.headers,
    payload: { events: ['contacts.created', 'logs.*'], url: URL_A }
  })
  t.equal(res.statusCode, 201, 'POST /webhooks')
  const sub = res.json()
  t.match(sub, {
    userId: alice.userId,
    events: ['contacts.created', 'logs.*'],
    url: URL_A,
    active: true,
    failureCount: 0,
    lastDeliveryAt: null
  })
  t.match(sub.secret, /^[0-9a-f]{64}$/, '32 random bytes, hex')
  t.match(sub.createdAt, /^\d{4}-\d\d-\d\dT/, 'ISO date')
  {
    const one = await app.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: alice.headers })
    t.equal(one.statusCode, 200, 'GET /webhooks/:id')
    t.equal(one.json().secret, undefined, 'no secret on read')
    t.equal(one.json().url, URL_A)
  }
  {
    const list = await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: alice.headers })
    t.equal(list.statusCode, 200, 'GET /webhooks')
    t.match(list.json(), { totalResults: 1, page: 1, totalPages: 1, nextPage: null, prevPage: null })
    t.equal(list.json().results[0].secret, undefined, 'no secret in the list')
  }
  const stored = await db.collection('webhook_subscriptions').findOne({ _id: sub._id })
  t.equal(stored?.secret, sub.secret, 'the secret is kept to sign deliveries')
})

t.test('tenant isolation: another tenant sees, changes, tests and deletes nothing', async (t) => {
  const sub = await subscribe(app, alice, URL_A)
  for (const [method, url, payload] of [
    ['GET', `/api/v1/webhooks/${sub._id}`],
    ['PATCH', `/api/v1/webhooks/${sub._id}`, { active: true }],
    ['DELETE', `/api/v1/webhooks/${sub._id}`],
    ['POST', `/api/v1/webhooks/${sub._id}/test`],
    ['GET', `/api/v1/webhooks/${sub._id}/deliveries`]
  ] as const) {
    const res = await app.inject({ method, url, headers: bob.headers, ...(payload !== undefined ? { payload } : {}) })
    t.equal(res.statusCode, 404, `${method} ${url} as another tenant`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  const list = await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bob.headers })
  t.equal(list.json().totalResults, 0, "bob's list is empty")
  const still = await app.inject({ method: 'GET', url: `/api/v1/webhooks/${sub._id}`, headers: alice.headers })
  t.equal(still.statusCode, 200, 'still there for its owner')
})

t.test('patch changes events and url, re-enables and resets failureCount; delete removes', async (t) => {
  const sub = await subscribe(app, alice, URL_A)
  await db
    .collection('webhook_subscriptions')
    .updateOne({ _id: sub._id as any }, { $set: { active: false, failureCount: 10 } })
  {
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${sub._id}`,
      headers: alice.headers,
      payload: { active: true, events: ['logs.deleted', 'logs.deleted'], url: 'http://127.0.0.1:10/x' }
    })
    t.equal(res.statusCode, 200, 'PATCH')
    t.match(res.json(), { active: true, failureCount: 0, events: ['logs.deleted'], url: 'http://127.0.0.1:10/x' })
    t.equal(res.json().secret, undefined)
  }
  {
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${sub._id}`,
      headers: alice.headers,
      payload: {}
    })
    t.equal(res.statusCode, 400, 'empty patch')
    t.equal(res.json().error.code, 'VALIDATION')
  }
  {
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${sub._id}`,
      headers: alice.headers,
      payload: { active: false }
    })
    t.equal(res.json().active, false, 'a subscription can be paused')
  }
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${sub._id}`, headers: alice.headers })
    t.equal(res.statusCode, 200, 'DELETE')
    t.equal(res.json()._id, sub._id)
    const again = await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${sub._id}`, headers: alice.headers })
    t.equal(again.statusCode, 404, 'second DELETE')
  }
})

t.test('bad input: clear 400s, nothing stored', async (t) => {
  const before = await db.collection('webhook_subscriptions').countDocuments()
  const cases: Array<[string, unknown]> = [
    ['no events', { url: URL_A }],
    ['empty events', { events: [], url: URL_A }],
    ['pattern without action', { events: ['contacts'], url: URL_A }],
    ['nested wildcard', { events: ['contacts.*.x'], url: URL_A }],
    ['unknown key', { events: ['*'], url: URL_A, secret: 'mine' }],
    ['url not a string', { events: ['*'], url: 5 }],
    ['relative url', { events: ['*'], url: '/hook' }],
    ['ftp url', { events: ['*'], url: 'ftp://example.com/x' }]
  ]
  for (const [name, payload] of cases) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: alice.headers,
      payload: payload as object
    })
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().error.code, 'VALIDATION', name)
  }
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: alice.headers,
    payload: { events: ['*'], url: 'ftp://example.com/x' }
  })
  t.equal(res.json().error.details.reason, 'SCHEME', 'CONTRACT reason for a scheme')
  const bad = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: alice.headers,
    payload: { events: ['contacts'], url: URL_A }
  })
  t.same(bad.json().error.details.invalid, ['contacts'], 'names the bad pattern')
  t.equal(await db.collection('webhook_subscriptions').countDocuments(), before, 'no partial write')
  const page = await app.inject({ method: 'GET', url: '/api/v1/webhooks?__page=0', headers: alice.headers })
  t.equal(page.statusCode, 400, '__page=0')
})

t.test('authentication: a bearer of a user is required', async (t) => {
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/webhooks' })
    t.equal(res.statusCode, 401, 'no token')
    t.equal(res.json().error.code, 'UNAUTHENTICATED')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { authorization: 'Bearer nope' },
      payload: { events: ['*'], url: URL_A }
    })
    t.equal(res.statusCode, 401, 'bad token')
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: { 'x-client-id': 'some-client' } })
    t.equal(res.statusCode, 401, 'api clients have no subscriptions')
  }
})

t.test('_describe lists the feature', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/_describe' })
  t.equal(res.json().features.webhooks, true)
})
