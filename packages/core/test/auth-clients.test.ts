import t from 'tap'
import { registerUser } from '@svc/testkit'
import { ApiClientStore } from '../src/auth/index.js'
import { bearer, buildAuthApp } from './fixtures/auth-app.js'

t.test('X-Client-Id: reads allowed, writes 403, unknown 401, bearer wins', async (t) => {
  const app = await buildAuthApp(t)
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public', name: 'website' })
  t.match(client._id, /^cl_[0-9a-f]{32}$/, 'random client id')
  const headers = { 'x-client-id': client._id }

  {
    const res = await app.inject({ method: 'GET', url: '/probe/read', headers })
    t.equal(res.statusCode, 200, 'GET with client id')
    t.same(res.json(), { kind: 'client', userId: null, roles: ['public'], clientId: client._id })
  }
  {
    const res = await app.inject({ method: 'POST', url: '/probe/write', headers })
    t.equal(res.statusCode, 403, 'POST with client id')
    t.equal(res.json().error.code, 'FORBIDDEN')
  }
  for (const id of ['cl_unknown', 'x'.repeat(500)]) {
    const res = await app.inject({ method: 'GET', url: '/probe/read', headers: { 'x-client-id': id } })
    t.equal(res.statusCode, 401, `unknown client ${id.slice(0, 12)}`)
    t.equal(res.json().error.code, 'UNAUTHENTICATED')
  }
  const user = await registerUser(app)
  {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/write',
      headers: { ...headers, ...bearer(user.accessToken) }
    })
    t.equal(res.statusCode, 200, 'bearer + client id: the bearer decides')
    t.match(res.json(), { kind: 'user', userId: user.user._id })
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/probe/read',
      headers: { ...headers, ...bearer('broken.token.value') }
    })
    t.equal(res.statusCode, 401, 'an invalid bearer never falls back to the client id')
  }
})
