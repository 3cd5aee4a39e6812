import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'

const schemas = [
  {
    path: 'articles',
    fields: [
      { name: 'title', type: String, required: true, searchable: true },
      { name: 'body', type: String, searchable: true },
      { name: 'tags', type: [String], searchable: true },
      { name: 'category', type: String },
      { name: 'score', type: Number }
    ]
  },
  { path: 'plain', fields: [{ name: 'title', type: String }] }
]

async function seed (app: FastifyInstance, u: TestUser, rows: Array<Record<string, unknown>>): Promise<string[]> {
  const ids: string[] = []
  for (const payload of rows) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/articles', headers: u.headers, payload })
    if (res.statusCode !== 201) throw new Error(res.body)
    ids.push(res.json()._id)
  }
  return ids
}

async function list (
  app: FastifyInstance,
  u: TestUser,
  query: Record<string, string>
): Promise<{ status: number; body: any }> {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/articles?${new URLSearchParams(query).toString()}`,
    headers: u.headers
  })
  return { status: res.statusCode, body: res.json() }
}

t.test('q searches searchable fields, sorted by text score, with filters and paging', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  await seed(app, u, [
    { title: 'Apples', body: 'apples and more apples, apples everywhere', category: 'fruit', score: 1 },
    { title: 'Pears', body: 'a pear is not an apple', category: 'fruit', score: 2 },
    { title: 'Cars', body: 'engines', tags: ['apple'], category: 'tech', score: 3 },
    { title: 'Boats', body: 'sails', category: 'tech', score: 4 }
  ])
  {
    const { status, body } = await list(app, u, { q: 'apple' })
    t.equal(status, 200)
    t.equal(body.totalResults, 3, 'count uses the same $text filter')
    t.equal(body.results[0].title, 'Apples', 'best match first (stemmed, repeated term)')
    t.same(body.results.map((r: any) => r.title).sort(), ['Apples', 'Cars', 'Pears'], 'array fields are searchable')
    t.equal(body.results.find((r: any) => r.title === 'Pears').score, 2, 'a field named score keeps its stored value')
  }
  {
    const { body } = await list(app, u, { q: 'apple', category: 'fruit' })
    t.same(
      body.results.map((r: any) => r.title),
      ['Apples', 'Pears'],
      'combined with a field filter'
    )
    t.equal(body.totalResults, 2)
  }
  {
    const seen: string[] = []
    for (let p = 1; p <= 3; p++) {
      const { body } = await list(app, u, { q: 'apple', __perPage: '1', __page: String(p) })
      t.equal(body.totalResults, 3)
      seen.push(...body.results.map((r: any) => r.title))
    }
    t.equal(new Set(seen).size, 3, 'paging visits every match once')
  }
  {
    const { body } = await list(app, u, { q: 'apple', __sort: 'title:asc' })
    t.same(
      body.results.map((r: any) => r.title),
      ['Apples', 'Cars', 'Pears'],
      'an explicit field sort replaces score'
    )
  }
  {
    const { body } = await list(app, u, { q: 'apple', __sort: 'category:desc,score' })
    t.equal(body.results[0].title, 'Cars', 'score as a secondary key')
  }
  {
    const { body } = await list(app, u, { q: 'apple', __sort: 'score' })
    t.equal(body.results[0].title, 'Apples', 'explicit __sort=score')
  }
  {
    const { body } = await list(app, u, { __sort: 'score:desc' })
    t.same(
      body.results.map((r: any) => r.score),
      [4, 3, 2, 1],
      'score:desc without q sorts the field named score'
    )
  }
  {
    const { body } = await list(app, u, { q: 'zeppelin' })
    t.same(body.results, [])
    t.equal(body.totalResults, 0)
  }
})

t.test('search never returns another tenant', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, [{ title: 'secret merger plan' }])
  await seed(app, bob, [{ title: 'lunch plan' }])
  const { body } = await list(app, bob, { q: 'merger plan' })
  t.same(
    body.results.map((r: any) => r.title),
    ['lunch plan']
  )
  t.equal(body.totalResults, 1)
})

t.test('bad q values are 400 VALIDATION', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/plain?q=hello', headers: u.headers })
    t.equal(res.statusCode, 400, 'q on a schema without searchable fields')
    t.equal(res.json().error.details.field, 'q')
  }
  for (const [query, field] of [
    [{ q: '   ' }, 'q'],
    [{ q: 'x'.repeat(600) }, 'q'],
    [{ q: 'a', __sort: 'score,score' }, '__sort']
  ] as const) {
    const { status, body } = await list(app, u, query as Record<string, string>)
    t.equal(status, 400, JSON.stringify(query).slice(0, 60))
    t.equal(body.error.code, 'VALIDATION')
    t.equal(body.error.details.field, field)
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/plain?__sort=score', headers: u.headers })
    t.equal(res.statusCode, 400, '__sort=score without q and without a score field')
  }
})

t.test('the text index follows the searchable fields across restarts', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const ix = await app.svc.db.collection('articles').listIndexes().toArray()
  const text = ix.find((i) => i.name === 'svc_text')
  t.ok(text, 'text index created at start-up')
  t.same(Object.keys(text!.weights).sort(), ['body', 'tags', 'title'])
})

t.test('a searchable field cannot be read-restricted (no oracle through q)', async (t) => {
  const people = {
    path: 'people',
    fields: [
      { name: 'name', type: String, searchable: true },
      { name: 'diagnosis', type: String, searchable: true, acl: { read: ['doctor'] } }
    ]
  }
  await t.rejects(buildCoreApp(t, { schemas: [people] }), /fields\.diagnosis\.acl\.read/, 'refused at load')
  // Defence in depth at query time, should a model reach the service some other way.
  const { textClause } = await import('../src/service/search.js')
  const app = await buildCoreApp(t, { schemas })
  const model = app.svc.registry.get('v1', 'articles')!
  t.throws(() => textClause(model, 'x', new Set(['_id', 'title'])), { message: /cannot read/ })
  t.ok(textClause(model, 'x', null))
})
