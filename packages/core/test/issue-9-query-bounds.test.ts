import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { svcServerOptions, type RequestContext } from '../src/index.js'
import { loadRegistry } from '../src/kit.js'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

// Issue 9: `?title={"$regex":"^(a+)+$"}` against 28 × a + "!" answered after 31 s and stalled
// every other request meanwhile; no query had a time limit.

const notes = {
  path: 'notes',
  fields: [
    { name: 'body', type: String, required: true },
    { name: 'n', type: Number }
  ]
}
const searchAgg = {
  name: 'matching',
  pipeline: [{ $count: 'n' }],
  params: [{ name: 'pattern', type: String, match: { title: { $regex: '$pattern' } } }]
}

async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
}

async function timed (url: string, u: TestUser): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now()
  const res = await fetch(url, { headers: u.headers })
  const body = await res.json()
  return { status: res.status, body, ms: performance.now() - started }
}

t.test('a backtracking $regex is refused at once, and a concurrent request is not held up', async (t) => {
  const app = await buildCoreApp(t, { schemas: [notes], fastify: svcServerOptions })
  const u = makeUser()
  const note = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { body: `${'a'.repeat(28)}!` }
  })
  const base = await listen(app)
  const evil = encodeURIComponent(JSON.stringify({ $regex: '^(a+)+$' }))
  const [first, second] = await Promise.all([
    timed(`${base}/api/v1/notes?body=${evil}`, u),
    // Sent right behind the first one: it must not wait for it.
    new Promise<{ status: number; body: any; ms: number }>((resolve, reject) =>
      setTimeout(() => {
        timed(`${base}/api/v1/notes/${note.json()._id as string}`, u).then(resolve, reject)
      }, 5)
    )
  ])
  t.equal(first.status, 400, 'the pattern is refused')
  t.equal(first.body.error.code, 'VALIDATION')
  t.match(first.body.error.message, /backtrack catastrophically/)
  t.equal(first.body.error.details.field, 'body')
  t.equal(second.status, 200, 'the concurrent GET by id answers')
  t.ok(
    second.ms < 2000,
    `the concurrent GET by id answered in ${second.ms.toFixed(0)} ms (bound 2000 ms; it took 31 s before)`
  )
  for (const pattern of ['(a*)*b', '(x+x+)+y', '(.*){1,32000}[bc]', `${'a?'.repeat(30)}${'a'.repeat(30)}`]) {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/notes?body=${encodeURIComponent(JSON.stringify({ $regex: pattern }))}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 400, `refused: ${pattern.slice(0, 24)}`)
  }
  for (const pattern of ['^aaa', 'a+!$', '[a-z]+@example\\.com']) {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/notes?body=${encodeURIComponent(JSON.stringify({ $regex: pattern }))}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200, `ordinary pattern ${pattern} still works`)
  }
  const ctx: RequestContext = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'mcp' }
  await t.rejects(
    app.svc.services.get('notes').list(ctx, { filter: { body: { $regex: '^(a+)+$' } } }),
    { statusCode: 400, code: 'VALIDATION' },
    'the service refuses it for every surface'
  )
})

t.test(
  'an aggregation param used as a $regex is checked the same way; a literal unsafe pattern stops start-up',
  async (t) => {
    const app = await buildCoreApp(t, { schemas: makeAggregationSchemas([searchAgg]) })
    const u = makeUser()
    await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { title: 'Acme', amount: 1 }
    })
    {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/deals/aggregations/matching?pattern=${encodeURIComponent('^(a+)+$')}`,
        headers: u.headers
      })
      t.equal(res.statusCode, 400)
      t.match(res.json().error, {
        code: 'VALIDATION',
        details: { field: 'pattern' },
        message: /backtrack catastrophically/
      })
    }
    {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/deals/aggregations/matching?pattern=Ac',
        headers: u.headers
      })
      t.equal(res.statusCode, 200)
      t.same(res.json().results, [{ n: 1 }], 'a plain pattern matches')
    }
    const unsafe = makeAggregationSchemas([
      {
        name: 'bad',
        pipeline: [],
        params: [{ name: 'p', type: String, match: { title: '$p', owner: { $regex: '(a+)+' } } }]
      }
    ])
    await t.rejects(
      loadRegistry({ schemas: unsafe }),
      /aggregations\.bad\.params\[0\]\.match\.owner\.\$regex: pattern may backtrack/
    )
  }
)

t.test('a query past queryTimeoutMs answers 503 QUERY_TIMEOUT and the process stays responsive', async (t) => {
  const app = await buildCoreApp(t, { schemas: [notes, ...makeAggregationSchemas()], options: { queryTimeoutMs: 1 } })
  const u = makeUser()
  const other = makeUser()
  const rows = Array.from({ length: 20_000 }, (_, i) => ({
    body: `note number ${i} with some text to scan`,
    n: i,
    userId: u.userId,
    createdAt: new Date(),
    updatedAt: new Date()
  }))
  await app.svc.db.collection('notes').insertMany(rows)
  await app.svc.db.collection('deals').insertMany(
    rows.map((r) => ({
      title: r.body,
      amount: r.n,
      stage: 'open',
      userId: u.userId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt
    }))
  )
  const mine = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: other.headers,
    payload: { body: 'small tenant' }
  })
  const slow = `/api/v1/notes?body=${encodeURIComponent(JSON.stringify({ $regex: 'never-there$' }))}`
  const base = await listen(app)
  const [list, byId] = await Promise.all([
    timed(`${base}${slow}`, u),
    new Promise<{ status: number; body: any; ms: number }>((resolve, reject) =>
      setTimeout(() => {
        timed(`${base}/api/v1/notes/${mine.json()._id as string}`, other).then(resolve, reject)
      }, 5)
    )
  ])
  t.equal(list.status, 503, 'a list past the bound')
  t.same(list.body, {
    error: {
      code: 'QUERY_TIMEOUT',
      message: 'the query took longer than the service allows: narrow the filter or page size'
    }
  })
  t.equal(byId.status, 200, 'another tenant is served meanwhile')
  t.ok(byId.ms < 2000, `…in ${byId.ms.toFixed(0)} ms (bound 2000 ms)`)
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { filter: { body: { $regex: 'never-there$' } }, record: { n: -1 } }
    })
    t.equal(res.statusCode, 503, 'a bulk update past the bound')
    t.equal(res.json().error.code, 'QUERY_TIMEOUT')
  }
  {
    // Matches every record, so a bounded multi-update would stop half-way: the bounded read stops first.
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { filter: { body: { $regex: 'text to scan$' } }, record: { n: -1 } }
    })
    t.equal(res.statusCode, 503, 'a bulk update over many records past the bound')
    t.equal(await app.svc.db.collection('notes').countDocuments({ n: -1 }), 0, 'no partial write')
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/deals/aggregations/byStage', headers: u.headers })
    t.equal(res.statusCode, 503, 'an aggregation past the bound')
    t.equal(res.json().error.code, 'QUERY_TIMEOUT')
  }
  const ctx: RequestContext = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' }
  await t.rejects(
    app.svc.services.get('notes').list(ctx, { filter: { n: { $lt: -1 } } }),
    { code: 50 },
    'the service surfaces the driver timeout to GraphQL/MCP, which map it through normalizeError'
  )
})

t.test('queryTimeoutMs is validated and reaches every service', async (t) => {
  const app = await buildCoreApp(t, { schemas: [notes], options: { queryTimeoutMs: 1234 } })
  t.equal(app.svc.config.queryTimeoutMs, 1234)
  t.equal(app.svc.services.get('notes').maxTimeMS, 1234)
  const dflt = await buildCoreApp(t, { schemas: [notes] })
  t.equal(dflt.svc.services.get('notes').maxTimeMS, 5000, 'default 5000')
  for (const bad of [0, -1, 1.5, 600_001]) {
    await t.rejects(
      buildCoreApp(t, { schemas: [notes], options: { queryTimeoutMs: bad } }),
      /queryTimeoutMs/,
      `refuses ${bad}`
    )
  }
})
