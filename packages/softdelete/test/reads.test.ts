import t from 'tap'
import { buildApp, makeUser } from './helper.js'

const SCHEMAS = [
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'body', type: String, required: true, searchable: true },
      { name: 'kind', type: String }
    ],
    aggregations: [{ name: 'byKind', pipeline: [{ $group: { _id: '$kind', n: { $sum: 1 } } }, { $sort: { _id: 1 } }] }]
  }
]

t.test('search, counts and aggregations exclude tombstones', async (t) => {
  const { app } = await buildApp(t, { schemas: SCHEMAS })
  const u = makeUser()
  await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { body: 'apple pie', kind: 'a' }
  })
  const dead = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { body: 'apple tart', kind: 'a' }
    })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${dead}`, headers: u.headers })
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/notes?q=apple', headers: u.headers })
    t.equal(res.statusCode, 200, 'GET ?q=apple')
    t.same(
      res.json().results.map((r: { body: string }) => r.body),
      ['apple pie'],
      'search skips the tombstone'
    )
    t.equal(res.json().totalResults, 1, 'and so does the count')
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes?q=apple&__includeDeleted=true',
      headers: u.headers
    })
    t.equal(res.json().totalResults, 2, 'search with __includeDeleted=true finds both')
  }
  const agg = await app.inject({ method: 'GET', url: '/api/v1/notes/aggregations/byKind', headers: u.headers })
  if (agg.statusCode === 404) {
    t.comment('aggregation routes are not in core yet (issue 3); skipped')
    return
  }
  t.equal(agg.statusCode, 200)
  t.same(agg.json().results, [{ _id: 'a', n: 1 }], 'aggregations never count tombstones')
})

t.test("a trash: tombstones only, most recently deleted first, the caller's own", async (t) => {
  const { app } = await buildApp(t)
  const [ada, bob] = [makeUser(), makeUser()]
  const make = async (who: typeof ada, body: string): Promise<string> =>
    (await app.inject({ method: 'POST', url: '/api/v1/notes', headers: who.headers, payload: { body } })).json()._id
  const del = async (who: typeof ada, id: string): Promise<void> => {
    await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: who.headers })
  }
  const first = await make(ada, 'first')
  const second = await make(ada, 'second')
  await make(ada, 'alive')
  await del(ada, second)
  await new Promise((resolve) => setTimeout(resolve, 5))
  await del(ada, first)
  await del(bob, await make(bob, "bob's"))
  const trash =
    '/api/v1/notes?__includeDeleted=true&__sort=deletedAt:desc&deletedAt=' +
    encodeURIComponent('{"$gte":"1970-01-01T00:00:00Z"}')
  const res = await app.inject({ method: 'GET', url: trash, headers: ada.headers })
  t.equal(res.statusCode, 200)
  t.same(
    res.json().results.map((r: { body: string }) => r.body),
    ['first', 'second'],
    "newest deletion first; live records and Bob's tombstone left out"
  )
  t.equal(res.json().totalResults, 2)
  const live = await app.inject({
    method: 'GET',
    url: trash.replace('__includeDeleted=true&', ''),
    headers: ada.headers
  })
  t.same(live.json().results, [], 'without __includeDeleted the live scope holds: no tombstone')
  const logs = await app.inject({
    method: 'GET',
    url: '/api/v1/logs?deletedAt=' + encodeURIComponent('{"$gte":"1970-01-01"}'),
    headers: ada.headers
  })
  t.match(
    logs.json(),
    { error: { code: 'VALIDATION', details: { field: 'deletedAt' } } },
    'a hard-delete schema has no deletedAt'
  )
})

t.test("a list's live page and total come from one index, its total from keys alone", async (t) => {
  const { app, db } = await buildApp(t, { schemas: SCHEMAS })
  const u = makeUser()
  const ids: string[] = []
  for (let i = 0; i < 25; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { body: `n${i}` }
    })
    ids.push(res.json()._id)
  }
  for (const id of ids.slice(0, 5)) {
    await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  }
  const list = (await app.inject({ method: 'GET', url: '/api/v1/notes?__perPage=10', headers: u.headers })).json()
  t.equal(list.totalResults, 20, 'tombstones are not counted')
  t.same(
    list.results.map((r: { body: string }) => r.body),
    Array.from({ length: 10 }, (_, i) => `n${24 - i}`),
    'the newest live records first'
  )
  const indexes = await db.collection('notes').indexes()
  t.ok(
    indexes.some((i) => i.name === 'svc_softdelete_live_created_id'),
    'soft delete adds the live-scope index'
  )
  // The queries a list issues (see the core list path): its page and its count.
  const { userId } = (await db.collection('notes').findOne({}))!
  const live = { userId, deletedAt: null }
  const plan = (ex: Record<string, any>): string =>
    JSON.stringify(ex.queryPlanner?.winningPlan ?? ex.stages?.[0]?.$cursor?.queryPlanner?.winningPlan ?? ex)
  const page = await db.collection('notes').find(live).sort({ createdAt: -1, _id: -1 }).limit(10).explain()
  t.match(plan(page), /svc_softdelete_live_created_id/, 'the page walks the live index')
  t.notMatch(plan(page), /"stage":"SORT"/, 'in order, without sorting')
  const count = await db
    .collection('notes')
    .aggregate([{ $match: live }, { $group: { _id: 1, n: { $sum: 1 } } }])
    .explain()
  t.match(plan(count), /svc_softdelete_live_created_id/, 'the total reads the live index')
  if (process.env.MONGODB_URI === undefined) {
    t.match(plan(count), /COUNT_SCAN/, 'devdb counts its keys, not the documents')
  }
})
