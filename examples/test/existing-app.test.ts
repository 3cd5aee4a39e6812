import t from 'tap'
import { getTestDb, registerUser } from '@svc/testkit'
import { buildExampleApp } from '../existing-app.js'

t.test('the example app keeps its own routes and gains svc auth and REST', async (t) => {
  const { db } = await getTestDb(t)
  const app = await buildExampleApp({ db, jwtSecret: 'example-secret', logger: false })
  t.teardown(async () => await app.close())

  t.same((await app.inject({ method: 'GET', url: '/hello' })).json(), { hello: 'world' }, 'existing route')
  t.equal((await app.inject({ method: 'GET', url: '/me' })).statusCode, 401, 'own route protected by svc auth')

  const user = await registerUser(app)
  const me = await app.inject({ method: 'GET', url: '/me', headers: user.headers })
  t.equal(me.json().userId, user.user._id, 'GET /me')

  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/todos',
    headers: user.headers,
    payload: { title: 'ship it' }
  })
  t.equal(created.statusCode, 201, 'POST /api/v1/todos')
  const list = await app.inject({ method: 'GET', url: '/api/v1/todos', headers: user.headers })
  t.match(
    list.json(),
    { totalResults: 1, results: [{ title: 'ship it', done: false, userId: user.user._id }] },
    'GET /api/v1/todos'
  )
})
