import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'

const q = (params: Record<string, string | number | boolean>): string =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()

async function seed (app: FastifyInstance, u: TestUser, n: number): Promise<void> {
  const svc = app.svc.services.get('tasks')
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'system' as const }
  for (let i = 0; i < n; i++) {
    await svc.create(ctx, {
      title: `task ${String(i).padStart(2, '0')}`,
      estimateHours: i % 5,
      done: i % 2 === 0,
      priority: ['low', 'normal', 'high'][i % 3],
      dueAt: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      assigneeEmail: i < 3 ? 'Boss@Example.com' : 'dev@example.com',
      checklist: i === 0 ? [{ text: 'first' }] : []
    })
  }
}

t.test('list envelope, paging and the default sort', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 25)
  const get = async (query = ''): Promise<any> => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/tasks${query === '' ? '' : '?' + query}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200, `GET /api/v1/tasks?${query}`)
    return res.json()
  }
  {
    const body = await get()
    t.match(body, { totalResults: 25, page: 1, perPage: 20, totalPages: 2, nextPage: 2, prevPage: null })
    t.equal(body.results.length, 20)
    t.equal(body.results[0].title, 'task 24', 'newest first by default')
  }
  {
    const body = await get(q({ __page: 2 }))
    t.match(body, { page: 2, nextPage: null, prevPage: 1, totalPages: 2 })
    t.same(
      body.results.map((r: any) => r.title),
      ['task 04', 'task 03', 'task 02', 'task 01', 'task 00']
    )
  }
  {
    const body = await get(q({ __perPage: 10, __page: 3 }))
    t.match(body, { perPage: 10, page: 3, totalPages: 3, nextPage: null, prevPage: 2 })
    t.equal(body.results.length, 5)
  }
  {
    const body = await get(q({ __perPage: 1000 }))
    t.equal(body.perPage, 200, '__perPage capped at 200')
  }
  {
    const body = await get(q({ __page: 9 }))
    t.match(body, { results: [], page: 9, nextPage: null })
  }
  {
    // Every record exactly once across pages, even with many equal sort keys (_id tiebreaker).
    const seen = new Set<string>()
    for (let p = 1; p <= 5; p++) {
      for (const r of (await get(q({ __perPage: 5, __page: p, __sort: 'done:asc' }))).results) seen.add(r._id)
    }
    t.equal(seen.size, 25, 'stable paging on a low-cardinality sort key')
  }
})

t.test('multi-key sort', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 10)
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/tasks?${q({ __sort: 'estimateHours:desc,title:asc' })}`,
    headers: u.headers
  })
  t.equal(res.statusCode, 200)
  t.same(
    res
      .json()
      .results.map((r: any) => [r.estimateHours, r.title])
      .slice(0, 4),
    [
      [4, 'task 04'],
      [4, 'task 09'],
      [3, 'task 03'],
      [3, 'task 08']
    ]
  )
})

t.test('filters: equality, operators, casting', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 10)
  const count = async (params: Record<string, string>): Promise<number> => {
    const res = await app.inject({ method: 'GET', url: `/api/v1/tasks?${q(params)}`, headers: u.headers })
    t.equal(res.statusCode, 200, `filter ${JSON.stringify(params)}`)
    return res.json().totalResults
  }
  t.equal(await count({ done: 'true' }), 5, 'boolean cast')
  t.equal(await count({ estimateHours: '3' }), 2, 'number cast')
  t.equal(await count({ estimateHours: '{"$gte":3}' }), 4, '$gte')
  t.equal(await count({ estimateHours: '{"$gt":"1","$lte":"3"}' }), 4, 'range with string numbers cast')
  t.equal(await count({ estimateHours: '{"$ne":0}' }), 8, '$ne')
  t.equal(await count({ priority: '{"$in":["low","high"]}' }), 7, '$in')
  t.equal(await count({ title: '{"$regex":"^TASK 0[0-2]","$options":"i"}' }), 3, '$regex with $options')
  t.equal(await count({ dueAt: '{"$lt":"2024-01-04"}' }), 3, 'date cast')
  t.equal(await count({ dueAt: '2024-01-02T00:00:00.000Z' }), 1, 'date equality')
  t.equal(
    await count({ assigneeEmail: 'BOSS@example.com' }),
    3,
    'lowercase fields match case-insensitively on equality'
  )
  t.equal(await count({ 'checklist.text': 'first' }), 1, 'nested path in an array of sub-documents')
  const first = (await app.inject({ method: 'GET', url: '/api/v1/tasks', headers: u.headers })).json().results[0]
  t.equal(await count({ _id: first._id }), 1, '_id cast to ObjectId')
  t.equal(await count({ createdAt: `{"$lte":"${first.createdAt}"}` }), 10, 'system date field')
})

t.test('refused filters and query parameters are 400 VALIDATION naming the field', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const cases: Array<[Record<string, string>, string]> = [
    [{ estimateHours: '{"$where":"sleep(100)"}' }, 'estimateHours'],
    [{ title: '{"$expr":{"$eq":[1,1]}}' }, 'title'],
    [{ title: '{"$function":{}}' }, 'title'],
    [{ $where: '1' }, '$where'],
    [{ 'title.$ne': 'x' }, 'title.$ne'],
    [{ nope: '1' }, 'nope'],
    [{ estimateHours: 'many' }, 'estimateHours'],
    [{ dueAt: 'soon' }, 'dueAt'],
    [{ _id: 'not-an-id' }, '_id'],
    [{ title: '{"$regex":' }, 'title'],
    [{ __sort: 'nope:asc' }, 'nope'],
    [{ __sort: 'title:sideways' }, '__sort'],
    [{ __bogus: '1' }, '__bogus'],
    [{ __perPage: 'abc' }, '__perPage'],
    [{ __page: '0' }, '__page']
  ]
  for (const [params, field] of cases) {
    const res = await app.inject({ method: 'GET', url: `/api/v1/tasks?${q(params)}`, headers: u.headers })
    t.equal(res.statusCode, 400, `GET ?${q(params)}`)
    t.equal(res.json().error.code, 'VALIDATION')
    t.equal(res.json().error.details.field, field, `names ${field}`)
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/tasks?done=true&done=false', headers: u.headers })
    t.equal(res.statusCode, 400, 'a repeated filter parameter')
  }
})
