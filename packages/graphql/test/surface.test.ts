import t from 'tap'
import svcSurface from '@svc/surface'
import { latencyUnderAttack } from '@svc/testkit'
import { buildApp, gql, makeUser } from './helper.js'

// @svc/surface's hooks are route-agnostic: registered first, they count and limit /graphql too.
t.test("rate limits answer RATE_LIMITED in GraphQL's shape; metrics label the /graphql route", async (t) => {
  const { app } = await buildApp(t, {
    first: async (app) => {
      await app.register(svcSurface, { rateLimit: { apiPerMin: 2 }, metrics: {}, docs: false, loadShedding: false })
    }
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

t.test('each aliased mutation is a request against the rate limits; a second client is served meanwhile', async (t) => {
  const { app, db } = await buildApp(t, {
    first: async (app) => {
      await app.register(svcSurface, { rateLimit: { apiPerMin: 600 }, docs: false, loadShedding: false })
    }
  })
  const attacker = makeUser()
  const creates = `mutation { ${Array.from({ length: 500 }, (_, i) => `c${i}: logsCreateOne(record: { line: "l${i}" }) { recordId }`).join(' ')} }`
  const victim = async (): Promise<void> => {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: makeUser().headers,
      payload: { query: '{ logsMany(limit: 1) { line } }' },
      remoteAddress: '10.5.0.2'
    })
    if (res.statusCode !== 200) throw new Error(`the victim got ${res.statusCode}: ${res.body}`)
  }
  let n = 0
  // From a new address each time: the tenant's own budget is what stops it.
  const attack = async (): Promise<number> =>
    (
      await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: attacker.headers,
        payload: { query: creates },
        remoteAddress: `10.5.1.${n++}`
      })
    ).statusCode
  const { victimMs, attacks } = await latencyUnderAttack(attack, victim, { concurrency: 3 })
  t.same(
    attacks.sort(),
    [200, 429, 429],
    '500 creates are 500 requests: one document fits the 600 of the minute, the next two do not'
  )
  t.ok(victimMs < 5000, `the second client waited ${Math.round(victimMs)} ms at most`)
  t.equal(
    await db.collection('logs').countDocuments({ userId: attacker.userId }),
    500,
    'the refused documents wrote nothing'
  )
  const refused = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: attacker.headers,
    payload: {
      query:
        'mutation { a: logsCreateOne(record: { line: "x" }) { recordId } b: logsCreateOne(record: { line: "y" }) { recordId } }'
    },
    remoteAddress: '10.5.0.9'
  })
  t.equal(refused.statusCode, 429, "the tenant's budget follows it to another address")
  t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
})
