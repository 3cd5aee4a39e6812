import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { recordValues } from '@svc/core/kit'
import { getTestDb } from '@svc/testkit'
import svcMcp from '../src/index.js'
import { JWT_SECRET, buildApp, connect, fails, makeUser, ok } from './helper.js'

// Answer sizes are bounded (paging, then a character budget with `truncated`), and query cost
// bounds are core's, inherited through the service.

const LONG = 'x'.repeat(300)

t.test('a page larger than maxResultChars is cut, flagged, and the hint pages through everything', async (t) => {
  const { url } = await buildApp(t, { mcp: { maxResultChars: 2000 } })
  const client = await connect(t, url, makeUser().headers)
  const ids = new Set<string>()
  for (let i = 0; i < 12; i++) ids.add((await ok(client, 'create_logs', { record: { line: `${i} ${LONG}` } }))._id)
  const page = await ok(client, 'list_logs', { perPage: 12 })
  t.equal(page.truncated, true, 'flagged')
  t.ok(page.results.length > 0 && page.results.length < 12, `cut to ${String(page.results.length)} results`)
  t.equal(page.totalResults, 12, 'the envelope still counts everything')
  t.match(page.hint, new RegExp(`perPage=${String(page.results.length)}`), 'the hint names a page size that fits')
  const res = await client.callTool({ name: 'list_logs', arguments: { perPage: 12 } })
  t.ok((res.content as any)[0].text.length <= 2500, 'the text rendering is bounded too')
  const seen = new Set<string>()
  for (let p = 1; ; p++) {
    const next = await ok(client, 'list_logs', { perPage: page.results.length, page: p })
    t.equal(next.truncated, false, `page ${p} fits`)
    for (const r of next.results) seen.add(r._id)
    if (next.nextPage === null) break
  }
  t.same([...seen].sort(), [...ids].sort(), 'following the hint reaches every record')
})

t.test('not even one result fits: an empty page with a hint, never a broken answer', async (t) => {
  const { url } = await buildApp(t, { mcp: { maxResultChars: 1000 } })
  const client = await connect(t, url, makeUser().headers)
  await ok(client, 'create_logs', { record: { line: 'y'.repeat(2000) } })
  const page = await ok(client, 'list_logs')
  t.match(page, { results: [], truncated: true, totalResults: 1, hint: /get_/ })
})

t.test("core's filter cost bounds hold on MCP", async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  t.match(
    await fails(client, 'list_contacts', { filter: { firstName: { $regex: 'a'.repeat(257) } } }),
    { code: 'VALIDATION', details: { field: 'filter.firstName' } },
    'regex length'
  )
  t.match(
    await fails(client, 'list_contacts', { filter: { firstName: { $in: Array(1001).fill('a') } } }),
    { code: 'VALIDATION' },
    '$in size'
  )
  t.match(
    await fails(client, 'list_contacts', { filter: { firstName: { $regex: '(' } } }),
    { code: 'VALIDATION', message: /not a valid regular expression/ },
    'an invalid regex reaches core and is refused there'
  )
  t.match(
    await fails(client, 'search_contacts', { q: 'q'.repeat(513) }),
    { code: 'VALIDATION', details: { field: 'q' } },
    'q length'
  )
})

t.test('a backtracking $regex is refused by core, as on REST', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  t.match(await fails(client, 'list_contacts', { filter: { firstName: { $regex: '^(a+)+$' } } }), {
    code: 'VALIDATION',
    message: /backtrack catastrophically/,
    details: { field: 'firstName' }
  })
})

t.test('a query past queryTimeoutMs is a QUERY_TIMEOUT tool error and the process keeps serving', async (t) => {
  const { app, url } = await buildApp(t, { core: { queryTimeoutMs: 1 } })
  const u = makeUser()
  const now = new Date()
  await app.svc.db.collection('logs').insertMany(
    Array.from({ length: 20_000 }, (_, i) => ({
      line: `line ${i} with some text to scan`,
      userId: u.userId,
      createdAt: now,
      updatedAt: now
    }))
  )
  await app.svc.db.collection('deals').insertMany(
    Array.from({ length: 20_000 }, (_, i) => ({
      title: `d${i}`,
      amount: i,
      stage: 'open',
      userId: u.userId,
      createdAt: now,
      updatedAt: now
    }))
  )
  const client = await connect(t, url, u.headers)
  t.same(await fails(client, 'list_logs', { filter: { line: { $regex: 'never-there$' } } }), {
    code: 'QUERY_TIMEOUT',
    message: 'the query took longer than the service allows: narrow the filter or page size'
  })
  t.match(await fails(client, 'aggregate_deals_byStage'), { code: 'QUERY_TIMEOUT' }, 'aggregations too')
  const other = await connect(t, url, makeUser().headers)
  const mine = await ok(other, 'create_logs', { record: { line: 'small tenant' } })
  t.equal((await ok(other, 'get_logs', { id: mine._id })).line, 'small tenant', 'another caller is served')
})

t.test('options are checked at registration', async (t) => {
  const { db } = await getTestDb(t)
  for (const [opts, message] of [
    [{ path: 'mcp' }, /path/],
    [{ maxResultChars: 10 }, /maxResultChars/]
  ] as const) {
    const app = Fastify({ logger: false })
    t.teardown(async () => await app.close())
    await app.register(svcCore, { db, jwtSecret: JWT_SECRET, schemas: [] })
    await t.rejects(async () => {
      await app.register(svcMcp, opts as never)
    }, message)
  }
})

t.test("core's cost model prices each tool call: the per-call limit and the tenant's minute", async (t) => {
  const { app, url } = await buildApp(t, { core: { maxRequestCost: 50_000 } })
  const client = await connect(t, url, makeUser().headers)
  const priced = await fails(client, 'list_companies', { include: ['contacts'] })
  t.match(
    priced,
    { code: 'VALIDATION', details: { limit: 50_000 } },
    'a hasMany include is priced at its cap, as on REST'
  )
  t.ok(priced.details.cost > 50_000, `cost ${String(priced.details.cost)} in details`)
  await ok(client, 'list_companies', { perPage: 5 })
  t.equal(app.svc.cost.limits.maxRequestCost, 50_000)

  const tenantPrice = 5 * recordValues(app.svc.registry.get('v1', 'companies')!)
  const { url: limited } = await buildApp(t, { core: { tenantCostPerMinute: tenantPrice * 2 } })
  const heavy = await connect(t, limited, makeUser().headers)
  await ok(heavy, 'list_companies', { perPage: 5 })
  await ok(heavy, 'list_companies', { perPage: 5 })
  t.match(
    await fails(heavy, 'list_companies', { perPage: 5 }),
    { code: 'RATE_LIMITED', details: { limit: tenantPrice * 2 } },
    "the third page is past the tenant's minute"
  )
  const other = await connect(t, limited, makeUser().headers)
  await ok(other, 'list_companies', { perPage: 5 })
  t.pass('another tenant is served')
})
