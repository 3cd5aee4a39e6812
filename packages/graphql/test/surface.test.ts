import t from 'tap'
import svcSurface from '@svc/surface'
import { buildApp, gql, makeUser } from './helper.js'

// @svc/surface's hooks are route-agnostic: registered first, they count and limit /graphql too.
t.test('rate limits answer RATE_LIMITED in GraphQL\'s shape; metrics label the /graphql route', async (t) => {
  const { app } = await buildApp(t, {
    first: async (app) => { await app.register(svcSurface, { rateLimit: { apiPerMin: 2 }, metrics: {}, docs: false, loadShedding: false }) }
  })
  const user = makeUser()
  for (let i = 0; i < 2; i++) t.equal((await gql(app, user.headers, '{ companiesMany { _id } }')).status, 200)
  const limited = await gql(app, user.headers, '{ companiesMany { _id } }')
  t.equal(limited.status, 429)
  t.equal(limited.errors?.[0].extensions.code, 'RATE_LIMITED')
  t.equal(limited.data, null)
  const metrics = await app.inject({ method: 'GET', url: '/_metrics' })
  t.match(metrics.body, /http_requests_total\{method="POST",route="\/graphql",status_code="200"\} 2/)
  t.match(metrics.body, /http_requests_total\{method="POST",route="\/graphql",status_code="429"\} 1/)
})
