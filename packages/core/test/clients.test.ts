import t from 'tap'
import { ApiClientStore } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

const schemas = [
  {
    path: 'articles',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'published', type: Boolean, default: false }
    ],
    acl: { scope: { public: { published: true } } }
  },
  { path: 'secrets', fields: [{ name: 'value', type: String }] }
]

t.test('anonymous api clients read through acl.scope and never write', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  const other = await new ApiClientStore(app.svc.db).create({ role: 'partner' })
  const anon = { 'x-client-id': client._id }
  const u = makeUser()
  const ids: Record<string, string> = {}
  for (const [title, published] of [
    ['draft', false],
    ['live', true]
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/articles',
      headers: u.headers,
      payload: { title, published }
    })
    ids[title] = res.json()._id
  }
  await app.inject({ method: 'POST', url: '/api/v1/secrets', headers: u.headers, payload: { value: 'x' } })
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/articles', headers: anon })
    t.equal(res.statusCode, 200, 'client list')
    t.same(
      res.json().results.map((r: any) => r.title),
      ['live'],
      'only what the scope allows'
    )
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/articles?published=false', headers: anon })
    t.equal(res.json().totalResults, 0, 'a filter cannot widen the scope')
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/articles/${ids.live}`, headers: anon })
    t.equal(res.statusCode, 200, 'client get inside scope')
    const res2 = await app.inject({ method: 'GET', url: `/api/v1/articles/${ids.draft}`, headers: anon })
    t.equal(res2.statusCode, 404, 'client get outside scope')
  }
  for (const [label, headers, url] of [
    ['schema without scope', anon, '/api/v1/secrets'],
    ['role without scope', { 'x-client-id': other._id }, '/api/v1/articles']
  ] as const) {
    const res = await app.inject({ method: 'GET', url, headers })
    t.equal(res.statusCode, 403, label)
    t.equal(res.json().error.code, 'FORBIDDEN')
  }
  const writes: Array<[string, string, unknown]> = [
    ['POST', '/api/v1/articles', { title: 'x' }],
    ['PUT', `/api/v1/articles/${ids.live}`, { title: 'x' }],
    ['DELETE', `/api/v1/articles/${ids.live}`, undefined],
    ['PUT', '/api/v1/articles', { filter: {}, record: { title: 'x' } }]
  ]
  for (const [method, url, payload] of writes) {
    const res = await app.inject({ method: method as 'POST', url, headers: anon, payload: payload as object })
    t.equal(res.statusCode, 403, `${method} ${url} by a client`)
    t.equal(res.json().error.code, 'FORBIDDEN')
  }
  t.equal(await app.svc.db.collection('articles').countDocuments({ title: 'x' }), 0, 'nothing written')
})

t.test('the service refuses client writes itself (surfaces without the REST hook)', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const ctx = {
    identity: { kind: 'client' as const, userId: null, roles: ['public'], clientId: 'cl_x' },
    surface: 'mcp' as const
  }
  const svc = app.svc.services.get('articles')
  await t.rejects(svc.create(ctx, { title: 'x' }), { statusCode: 403, code: 'FORBIDDEN' })
  await t.rejects(svc.updateById(ctx, '0123456789abcdef01234567', { title: 'x' }), {
    statusCode: 403,
    code: 'FORBIDDEN'
  })
  await t.rejects(svc.deleteById(ctx, '0123456789abcdef01234567'), { statusCode: 403, code: 'FORBIDDEN' })
  await t.rejects(svc.bulkPut(ctx, {}, { title: 'x' }), { statusCode: 403, code: 'FORBIDDEN' })
  await t.rejects(
    svc.list({ identity: null, surface: 'mcp' }),
    { statusCode: 401, code: 'UNAUTHENTICATED' },
    'no identity and not system'
  )
})

t.test('an acl.scope filter outside the filter rules stops start-up naming the schema', async (t) => {
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 'a', type: String }], acl: { scope: { public: { $where: '1' } } } }]
    }),
    /schemas\[0\]: acl\.scope\.public: /
  )
})
