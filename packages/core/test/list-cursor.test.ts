import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'

const q = (params: Record<string, string | number | boolean>): string =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()

function ctxOf (u: TestUser): any {
  return { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'system' as const }
}

async function seed (app: FastifyInstance, u: TestUser, n: number, from = 0): Promise<void> {
  const svc = app.svc.services.get('tasks')
  for (let i = from; i < from + n; i++) {
    // Every third task has no estimate: sorts on it cross nulls.
    await svc.create(ctxOf(u), {
      title: `task ${String(i).padStart(2, '0')}`,
      done: i % 2 === 0,
      ...(i % 3 === 0 ? {} : { estimateHours: i % 4 })
    })
  }
}

async function list (
  app: FastifyInstance,
  u: TestUser,
  params: Record<string, string | number | boolean>
): Promise<any> {
  const res = await app.inject({ method: 'GET', url: `/api/v1/tasks?${q(params)}`, headers: u.headers })
  return { status: res.statusCode, body: res.json() }
}

/** Every page of a walk by cursor: the titles in order. */
async function walk (
  app: FastifyInstance,
  u: TestUser,
  params: Record<string, string | number | boolean>,
  between?: () => Promise<void>
): Promise<{ titles: string[]; pages: any[] }> {
  const titles: string[] = []
  const pages: any[] = []
  let cursor: string | null = null
  do {
    const { status, body }: { status: number; body: any } = await list(
      app,
      u,
      cursor === null ? params : { ...params, __cursor: cursor }
    )
    if (status !== 200) throw new Error(`walk answered ${status}: ${JSON.stringify(body)}`)
    pages.push(body)
    titles.push(...body.results.map((r: any) => r.title))
    cursor = body.nextCursor
    if (between !== undefined) await between()
  } while (cursor !== null && pages.length < 50)
  return { titles, pages }
}

t.test('a walk by cursor visits what offset paging visits, on any sort', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 23)
  for (const sort of [undefined, 'estimateHours:desc', 'estimateHours:asc', 'done:asc,title:desc', 'dueAt:asc']) {
    const params: Record<string, string | number> = { __perPage: 5, ...(sort !== undefined ? { __sort: sort } : {}) }
    const all = await list(app, u, { ...params, __perPage: 200 })
    const { titles, pages } = await walk(app, u, params)
    t.same(
      titles,
      all.body.results.map((r: any) => r.title),
      `cursor walk = one big page (${sort ?? 'default sort'})`
    )
    t.same(
      pages.map((p) => p.page),
      [1, 2, 3, 4, 5],
      'pages are numbered along the walk'
    )
    t.equal(pages[4].nextCursor, null, 'the last page has no nextCursor')
    t.equal(pages[1].prevPage, 1)
    t.equal(pages[2].totalResults, 23, 'counted by default')
  }
})

t.test('records inserted during a walk never make one appear twice', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 12)
  let added = 100
  const { titles } = await walk(app, u, { __perPage: 4, __sort: 'createdAt:asc' }, async () => {
    await seed(app, u, 2, added)
    added += 2
  })
  t.equal(new Set(titles).size, titles.length, 'no record twice')
  for (let i = 0; i < 12; i++) t.ok(titles.includes(`task ${String(i).padStart(2, '0')}`), `task ${i} seen`)
  const newest = await walk(app, u, { __perPage: 4 }, async () => {
    await seed(app, u, 1, added++)
  })
  t.equal(
    new Set(newest.titles).size,
    newest.titles.length,
    'newest-first walk: inserts land before the walk, never twice'
  )
})

t.test('__count=false skips the total; nextPage follows from a record past the page', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 10)
  const first = await list(app, u, { __perPage: 5, __count: false })
  t.equal(first.status, 200)
  t.match(first.body, { totalResults: null, totalPages: null, page: 1, perPage: 5, nextPage: 2, prevPage: null })
  const second = await list(app, u, { __perPage: 5, __count: false, __cursor: first.body.nextCursor })
  t.match(second.body, { totalResults: null, totalPages: null, page: 2, nextPage: null, prevPage: 1, nextCursor: null })
  const byPage = await list(app, u, { __perPage: 5, __count: 'false', __page: 2 })
  t.match(byPage.body, { nextPage: null, totalResults: null }, 'a full last page has no next page')
  t.match((await list(app, u, { __count: true })).body, { totalResults: 10, totalPages: 1 })
  const bad = await list(app, u, { __count: 'maybe' })
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, 'VALIDATION')
})

t.test('a cursor altered, of another query or another tenant is 400 VALIDATION', async (t) => {
  const app = await buildCoreApp(t)
  const alice = makeUser()
  const bob = makeUser()
  await seed(app, alice, 8)
  await seed(app, bob, 8)
  const page = await list(app, alice, { __perPage: 3 })
  const cursor: string = page.body.nextCursor
  t.type(cursor, 'string')
  const refused = async (
    who: TestUser,
    params: Record<string, string | number | boolean>,
    why: string
  ): Promise<void> => {
    const res = await list(app, who, params)
    t.equal(res.status, 400, why)
    t.equal(res.body.error?.code, 'VALIDATION', why)
    t.equal(res.body.results, undefined, `${why}: no records`)
  }
  const [payload, mac] = cursor.split('.')
  const flipped = payload.slice(0, -2) + (payload.at(-2) === 'A' ? 'B' : 'A') + payload.at(-1)!
  await refused(alice, { __perPage: 3, __cursor: `${flipped}.${mac}` }, 'altered payload')
  await refused(alice, { __perPage: 3, __cursor: `${payload}.${mac.slice(1)}` }, 'cut signature')
  await refused(alice, { __perPage: 3, __cursor: 'not-a-cursor' }, 'garbage')
  await refused(alice, { __perPage: 3, __cursor: `${cursor}.x` }, 'extra part')
  await refused(alice, { __perPage: 4, __cursor: cursor }, 'another __perPage')
  await refused(alice, { __perPage: 3, __sort: 'title:asc', __cursor: cursor }, 'another __sort')
  await refused(alice, { __perPage: 3, done: true, __cursor: cursor }, 'another filter')
  await refused(alice, { __perPage: 3, __page: 2, __cursor: cursor }, '__cursor with __page')
  await refused(bob, { __perPage: 3, __cursor: cursor }, "another tenant's walk")
  const ok = await list(app, alice, { __perPage: 3, __cursor: cursor })
  t.equal(ok.status, 200, 'the untouched cursor still works')
  t.equal(ok.body.page, 2)
})

t.test('service: offset cursors for text-score sorts, keyset on array-free sorts', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  await seed(app, u, 9)
  const svc = app.svc.services.get('tasks')
  const seen: string[] = []
  let cursor: string | undefined
  for (let i = 0; i < 5; i++) {
    const page = await svc.list(ctxOf(u), {
      q: 'task',
      perPage: 4,
      count: false,
      ...(cursor !== undefined ? { cursor } : {})
    })
    seen.push(...page.results.map((r) => r._id))
    if (page.nextCursor === null) break
    cursor = page.nextCursor
  }
  t.equal(seen.length, 9, 'a text search walks by offset')
  t.equal(new Set(seen).size, 9)
  await t.rejects(svc.list(ctxOf(u), { count: 'no' as any }), { statusCode: 400 } as any)
})

t.test('companies: a sort on an array field walks by offset', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const svc = app.svc.services.get('companies')
  for (let i = 0; i < 7; i++) await svc.create(ctxOf(u), { name: `c${i}`, tags: [`t${i % 3}`, `z${i}`] })
  const first = await svc.list(ctxOf(u), { sort: 'tags:asc', perPage: 4 })
  const second = await svc.list(ctxOf(u), { sort: 'tags:asc', perPage: 4, cursor: first.nextCursor! })
  const all = await svc.list(ctxOf(u), { sort: 'tags:asc', perPage: 10 })
  t.same(
    [...first.results, ...second.results].map((r) => r.name),
    all.results.map((r) => r.name)
  )
  t.equal(second.nextCursor, null)
})
