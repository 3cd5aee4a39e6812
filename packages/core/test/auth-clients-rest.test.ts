import t from 'tap'
import { registerUser } from '@svc/testkit'
import { ApiClientStore } from '../src/auth/index.js'
import { bearer, buildAuthApp } from './fixtures/auth-app.js'

const articles = {
  path: 'articles',
  collection: 'articles',
  fields: [
    { name: 'title', type: 'String', required: true },
    { name: 'published', type: 'Boolean', default: false }
  ],
  acl: { scope: { public: { published: true } } }
}
const drafts = { path: 'drafts', collection: 'drafts', fields: [{ name: 'title', type: 'String' }] }

t.test(
  'X-Client-Id on the generated REST routes: scoped reads, every write 403, unknown 401, bearer wins',
  async (t) => {
    const app = await buildAuthApp(t, { schemas: [articles, drafts] })
    const author = await registerUser(app)
    const publicClient = await new ApiClientStore(app.svc.db).create({ role: 'public' })
    const otherClient = await new ApiClientStore(app.svc.db).create({ role: 'partner' })
    const client = { 'x-client-id': publicClient._id }

    let publishedId = ''
    for (const [title, published] of [
      ['hello', true],
      ['secret draft', false]
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/articles',
        headers: author.headers,
        payload: { title, published }
      })
      t.equal(res.statusCode, 201, `author creates ${title}`)
      if (published) publishedId = res.json()._id
    }
    {
      const res = await app.inject({ method: 'GET', url: '/api/v1/articles', headers: client })
      t.equal(res.statusCode, 200, 'client lists')
      t.same(
        res.json().results.map((r: { title: string }) => r.title),
        ['hello'],
        'only the acl.scope.public rows'
      )
    }
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/articles/${publishedId}`, headers: client })
      t.equal(res.statusCode, 200, 'client reads one')
    }
    const writes = [
      ['POST', '/api/v1/articles', { title: 'x' }],
      ['PUT', `/api/v1/articles/${publishedId}`, { title: 'x' }],
      ['PUT', '/api/v1/articles', { filter: {}, record: { title: 'x' } }],
      ['DELETE', `/api/v1/articles/${publishedId}`, undefined]
    ] as const
    for (const [method, url, payload] of writes) {
      const res = await app.inject({ method, url, headers: client, ...(payload === undefined ? {} : { payload }) })
      t.equal(res.statusCode, 403, `client ${method} ${url}`)
      t.equal(res.json().error?.code, 'FORBIDDEN')
    }
    {
      const res = await app.inject({ method: 'GET', url: '/api/v1/drafts', headers: client })
      t.equal(res.statusCode, 403, 'a schema without a scope for the role is closed to the client')
    }
    {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/articles',
        headers: { 'x-client-id': otherClient._id }
      })
      t.equal(res.statusCode, 403, 'a client whose role has no scope reads nothing')
    }
    {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/articles',
        headers: { 'x-client-id': 'cl_00000000000000000000000000000000' }
      })
      t.equal(res.statusCode, 401, 'unknown client')
      t.equal(res.json().error?.code, 'UNAUTHENTICATED')
    }
    {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/articles',
        headers: { ...client, ...bearer(author.accessToken) }
      })
      t.equal(res.statusCode, 200, 'bearer + client id')
      t.equal(res.json().results.length, 2, 'the bearer decides: the author sees both own articles')
      const write = await app.inject({
        method: 'POST',
        url: '/api/v1/articles',
        headers: { ...client, ...bearer(author.accessToken) },
        payload: { title: 'by bearer' }
      })
      t.equal(write.statusCode, 201, 'bearer + client id may write')
    }
    {
      const res = await app.inject({ method: 'GET', url: '/api/v1/articles' })
      t.equal(res.statusCode, 401, 'nothing at all')
    }
  }
)
