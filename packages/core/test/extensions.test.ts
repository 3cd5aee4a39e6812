import t from 'tap'
import type { RecordEvent, WriteResult } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test('record events: created, updated, deleted, bulk with numAffected', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const seen: RecordEvent[] = []
  for (const type of ['notes.created', 'notes.updated', 'notes.deleted']) {
    app.svc.events.on(type, (e: RecordEvent) => {
      seen.push(e)
    })
  }
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'b' } })
  await app.inject({
    method: 'PUT',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { filter: { body: 'b' }, record: { pinned: true } }
  })
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  t.same(
    seen.map((e) => e.type),
    ['notes.created', 'notes.updated', 'notes.updated', 'notes.deleted']
  )
  t.match(seen[0], { version: 'v1', path: 'notes', userId: u.userId, recordId: id, record: { body: 'a' } })
  t.match(seen[1], { recordId: id, record: { body: 'b' }, before: { body: 'a' } })
  t.match(seen[2], { filter: { body: 'b' }, numAffected: 1 })
  t.notOk('recordId' in seen[2], 'bulk events carry no record')
  t.match(seen[3], { recordId: id, record: { body: 'b', pinned: true } })
})

t.test('failing subscribers never fail the request', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  let later = 0
  app.svc.events.on('notes.created', () => {
    throw new Error('sync boom')
  })
  app.svc.events.on('notes.created', async () => {
    throw new Error('async boom')
  })
  app.svc.events.on('notes.created', () => {
    later++
  })
  app.svc.services.get('notes').onWrite(() => {
    throw new Error('subscriber boom')
  })
  const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  t.equal(res.statusCode, 201)
  t.equal(later, 1, 'the next listener still ran')
})

t.test('write subscribers get before/after and run before the answer', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const results: WriteResult[] = []
  app.svc.services.get('notes').onWrite(async (r) => {
    await new Promise((resolve) => setTimeout(resolve, 10))
    results.push(r)
  })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  t.equal(results.length, 1, 'awaited before the response')
  t.match(results[0], { action: 'created', before: null, after: { _id: id, body: 'a' }, ctx: { surface: 'rest' } })
  await app.inject({
    method: 'PUT',
    url: `/api/v1/notes/${id}`,
    headers: u.headers,
    payload: { body: 'b', pinned: null }
  })
  t.match(results[1], { action: 'updated', before: { body: 'a', pinned: false }, after: { body: 'b' } })
  t.notOk('pinned' in (results[1].after ?? {}), 'after reflects $unset')
})

t.test('scope + delete strategy: the soft-delete shape issue 5 builds on', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const notes = app.svc.services.get('notes')
  notes.addScope(({ options }) => (options.includeDeleted === true ? undefined : { deletedAt: null }))
  notes.setDeleteStrategy(() => ({ $set: { deletedAt: new Date() } }))
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'b' } })
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200)
    t.match(res.json().deletedAt, /Z$/, 'answers the tombstone')
  }
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    404,
    'tombstone hidden from get'
  )
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    404,
    'second delete is 404'
  )
  t.equal(
    (await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'z' } }))
      .statusCode,
    404,
    'tombstone cannot be updated'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: u.headers })).json().totalResults,
    1,
    'list hides it'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes?__includeDeleted=true', headers: u.headers })).json()
      .totalResults,
    2,
    '__includeDeleted reaches the scope'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}?__includeDeleted=true`, headers: u.headers }))
      .statusCode,
    200
  )
  t.equal(await app.svc.db.collection('notes').countDocuments(), 2, 'nothing removed')
  const other = makeUser()
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes?__includeDeleted=true', headers: other.headers })).json()
      .totalResults,
    0,
    'scopes never replace the tenant filter'
  )
})
