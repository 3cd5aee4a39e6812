import t from 'tap'
import { signToken } from '@svc/testkit'
import { JWT_SECRET, buildCoreApp, makeUser } from './helper.js'

t.test('another tenant cannot see or touch a record on any route', async (t) => {
  const app = await buildCoreApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const create = async (headers: Record<string, string>, title: string, amount = 10): Promise<string> => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/deals', headers, payload: { title, amount } })
    t.equal(res.statusCode, 201, `create ${title}`)
    return res.json()._id
  }
  const aliceId = await create(alice.headers, 'alice deal')
  await create(alice.headers, 'alice deal 2')
  await create(bob.headers, 'bob deal')

  for (const [method, payload] of [
    ['GET', undefined],
    ['PUT', { title: 'stolen' }],
    ['DELETE', undefined]
  ] as const) {
    const res = await app.inject({ method, url: `/api/v1/deals/${aliceId}`, headers: bob.headers, payload })
    t.equal(res.statusCode, 404, `${method} another tenant's id`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/deals', headers: bob.headers })
    t.same(
      res.json().results.map((r: any) => r.title),
      ['bob deal'],
      'list shows only own records'
    )
    t.equal(res.json().totalResults, 1, 'count is tenant-scoped too')
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/deals?_id=${aliceId}`, headers: bob.headers })
    t.equal(res.json().totalResults, 0, 'filtering by another tenant id finds nothing')
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/deals?userId=${alice.userId}`, headers: bob.headers })
    t.equal(res.json().totalResults, 0, 'a userId filter cannot widen the tenant')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: bob.headers,
      payload: { filter: {}, record: { stage: 'lost' } }
    })
    t.same(res.json(), { numAffected: 1 }, 'bulk PUT with an empty filter touches only own records')
    const res2 = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: bob.headers,
      payload: { filter: { _id: aliceId }, record: { stage: 'lost' } }
    })
    t.same(res2.json(), { numAffected: 0 }, 'bulk PUT by another tenant id')
    const res3 = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: bob.headers,
      payload: { filter: { userId: alice.userId }, record: { stage: 'lost' } }
    })
    t.same(res3.json(), { numAffected: 0 }, 'bulk PUT filtered on another userId')
    const aliceDeals = await app.svc.db.collection('deals').find({ userId: alice.userId }).toArray()
    t.ok(
      aliceDeals.every((d) => d.stage === 'prospecting'),
      "alice's records untouched"
    )
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/deals/${aliceId}`, headers: alice.headers })
    t.equal(res.json().title, 'alice deal', 'still intact for its owner')
  }
})

t.test('malformed and unknown ids are 404', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  for (const id of ['nope', '123', '0123456789abcdef0123456z', '0123456789abcdef01234567', '%24where']) {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: `/api/v1/deals/${id}`,
        headers: u.headers,
        payload: method === 'PUT' ? { title: 'x' } : undefined
      })
      t.equal(res.statusCode, 404, `${method} /api/v1/deals/${id}`)
      t.equal(res.json().error.code, 'NOT_FOUND')
    }
  }
})

t.test('client-supplied userId/accountId are never stored (create, update, bulk)', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const evil = { userId: 'someone-else', accountId: 'other-org' }
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { body: 'hi', ...evil }
  })
  t.equal(res.statusCode, 201)
  const id = res.json()._id
  t.equal(res.json().userId, u.userId)
  t.notOk('accountId' in res.json(), 'no accountId without an account_id claim')
  await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'x', ...evil } })
  await app.inject({
    method: 'PUT',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { filter: {}, record: { pinned: true, ...evil } }
  })
  const docs = await app.svc.db.collection('notes').find({}).toArray()
  t.equal(docs.length, 1)
  t.equal(docs[0].userId, u.userId)
  t.notOk('accountId' in docs[0])
  t.equal(docs[0].pinned, true)
})

t.test('unauthenticated and badly authenticated requests are 401 on every route', async (t) => {
  const app = await buildCoreApp(t)
  const claims = { user_id: '65f000000000000000000009', email: 'x@example.test', roles: ['user'] }
  const badHeaders: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer not.a.token' },
    { authorization: 'Basic abc' },
    { authorization: `Bearer ${signToken(claims, JWT_SECRET, { expiresIn: -60 })}` },
    { authorization: `Bearer ${signToken(claims, JWT_SECRET, { alg: 'none' })}` },
    { authorization: `Bearer ${signToken(claims, JWT_SECRET, { alg: 'HS512' })}` },
    { authorization: `Bearer ${signToken(claims, 'some-other-secret-0123456789abcdef')}` },
    { authorization: `Bearer ${signToken({ email: 'x@example.test', roles: ['user'] }, JWT_SECRET)}` }
  ]
  const routes: Array<[string, string]> = [
    ['POST', '/api/v1/notes'],
    ['GET', '/api/v1/notes'],
    ['PUT', '/api/v1/notes'],
    ['GET', '/api/v1/notes/0123456789abcdef01234567'],
    ['PUT', '/api/v1/notes/0123456789abcdef01234567'],
    ['DELETE', '/api/v1/notes/0123456789abcdef01234567'],
    ['GET', '/api/v1/notes-schema']
  ]
  for (const [method, url] of routes) {
    for (const headers of badHeaders) {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers,
        payload: method === 'GET' || method === 'DELETE' ? undefined : {}
      })
      t.equal(res.statusCode, 401, `${method} ${url} ${JSON.stringify(headers).slice(0, 60)}`)
      t.equal(res.json().error.code, 'UNAUTHENTICATED')
    }
  }
})
