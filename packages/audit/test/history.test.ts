import t from 'tap'
import { buildApp, makeUser } from './helper.js'

t.test('GET /:id/history: list envelope, newest first, paged, CONTRACT row shape', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'v0' } })
  ).json()._id
  for (let i = 1; i <= 4; i++) { await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: `v${i}` } }) }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: u.headers })
    t.equal(res.statusCode, 200, 'GET history')
    const body = res.json()
    t.match(body, { totalResults: 5, page: 1, perPage: 20, totalPages: 1, nextPage: null, prevPage: null })
    t.same(
      body.results.map((r: { action: string }) => r.action),
      ['update', 'update', 'update', 'update', 'create'],
      'newest first'
    )
    t.same(body.results[0].diff, { body: { from: 'v3', to: 'v4' } })
    t.same(Object.keys(body.results[0]).sort(), [
      '_id',
      'action',
      'actor',
      'after',
      'at',
      'before',
      'diff',
      'recordId',
      'userId'
    ])
    t.match(body.results[0], { recordId: id, userId: u.userId, actor: { kind: 'user', userId: u.userId }, at: /Z$/ })
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/notes/${id}/history?__page=2&__perPage=2`,
      headers: u.headers
    })
    t.match(res.json(), { totalResults: 5, page: 2, perPage: 2, totalPages: 3, nextPage: 3, prevPage: 1 })
    t.same(
      res.json().results.map((r: { after: { body: string } }) => r.after.body),
      ['v2', 'v1'],
      'the second page'
    )
  }
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history?__perPage=0`, headers: u.headers }))
      .statusCode,
    400,
    '__perPage=0 is 400'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history?body=x`, headers: u.headers })).statusCode,
    400,
    'filters are not taken'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history?__perPage=500`, headers: u.headers })).json()
      .perPage,
    200,
    'capped at 200'
  )
})

t.test('history is tenant-isolated and needs a bearer', async (t) => {
  const { app } = await buildApp(t)
  const a = makeUser()
  const b = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: a.headers, payload: { body: 'a' } })
  ).json()._id
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: b.headers })
    t.equal(res.statusCode, 404, "another tenant's record is 404")
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes/nope/history', headers: a.headers })).statusCode,
    404,
    'malformed id'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes/65f000000000000000000000/history', headers: a.headers }))
      .statusCode,
    404,
    'unknown id'
  )
  t.equal((await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history` })).statusCode, 401, 'no bearer')
  // b writes a row for the same recordId would need b to own it: history never mixes tenants.
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: a.headers })
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: b.headers })).statusCode,
    404,
    'still 404 once tombstoned'
  )
})

t.test(
  "a tombstoned record's history stays readable by its owner; a hard-deleted one too, by its former owner only",
  async (t) => {
    const { app } = await buildApp(t)
    const a = makeUser()
    const b = makeUser()
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/notes', headers: a.headers, payload: { body: 'a' } })
    ).json()._id
    await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: a.headers })
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: a.headers })
      t.equal(res.statusCode, 200, 'tombstone history for the owner')
      t.same(
        res.json().results.map((r: { action: string }) => r.action),
        ['delete', 'create']
      )
    }
    const logId = (
      await app.inject({ method: 'POST', url: '/api/v1/logs', headers: a.headers, payload: { line: 'l' } })
    ).json()._id
    await app.inject({ method: 'DELETE', url: `/api/v1/logs/${logId}`, headers: a.headers })
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/logs/${logId}/history`, headers: a.headers })
      t.equal(res.statusCode, 200, "a removed record's history for its former owner")
      t.same(
        res.json().results.map((r: { action: string }) => r.action),
        ['delete', 'create']
      )
    }
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/v1/logs/${logId}/history`, headers: b.headers })).statusCode,
      404,
      'and 404 for anybody else'
    )
  }
)

t.test("the reader's field ACL applies to before, after and diff", async (t) => {
  const { app } = await buildApp(t)
  const admin = makeUser({ roles: ['user', 'admin'] })
  const id = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: admin.headers,
      payload: { body: 'a', secret: 's1' }
    })
  ).json()._id
  await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: admin.headers, payload: { secret: 's2' } })
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: admin.headers })
    t.same(res.json().results[0].diff, { secret: { from: 's1', to: 's2' } }, 'an admin sees the secret change')
  }
  // The same tenant without the admin role (a second token for the same user id).
  const plain = makeUser({ user_id: admin.userId, roles: ['user'] })
  const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: plain.headers })
  t.equal(res.statusCode, 200)
  const [update, create] = res.json().results
  t.same(update.diff, {}, 'the hidden field is not even in the diff')
  t.notOk('secret' in update.before || 'secret' in update.after, 'nor in before/after')
  t.notOk('secret' in create.after || 'secret' in create.diff)
  t.equal(create.after.body, 'a', 'readable fields stay')
  t.notMatch(res.body, /s1|s2/, 'the secret values appear nowhere in the answer')
})

t.test('app.svc.audit.history serves other surfaces', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  const page = await app.svc.audit!.history(
    { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' },
    'notes',
    id
  )
  t.equal(page.totalResults, 1)
  await t.rejects(
    app.svc.audit!.history(
      { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' },
      'drafts',
      id
    ),
    /audit off/
  )
  // The bearer rule of the REST route holds for every surface: before-images are not for api clients.
  const client = {
    identity: { kind: 'client' as const, userId: null, roles: ['public'], clientId: 'cl_x' },
    surface: 'mcp' as const
  }
  await t.rejects(
    app.svc.audit!.history(client, 'notes', id),
    { statusCode: 403, code: 'FORBIDDEN' },
    'an api client is refused'
  )
})
