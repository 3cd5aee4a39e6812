import t from 'tap'
import type { RecordEvent } from '@svc/core'
import { buildApp, makeUser } from './helper.js'

t.test('DELETE tombstones instead of removing; reads hide it unless __includeDeleted', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  const events: RecordEvent[] = []
  app.svc.events.on('notes.deleted', (e: RecordEvent) => {
    events.push(e)
  })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'b' } })
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200, 'DELETE answers 200')
    t.match(res.json(), { _id: id, body: 'a', deletedAt: /Z$/ }, 'DELETE answers the tombstone')
  }
  t.equal(await db.collection('notes').countDocuments(), 2, 'nothing removed from the collection')
  t.equal(events.length, 1, 'one notes.deleted event')
  t.match(events[0], { recordId: id, record: { deletedAt: /Z$/ } })
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    404,
    'GET of a tombstone is 404'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}?__includeDeleted=false`, headers: u.headers }))
      .statusCode,
    404,
    '__includeDeleted=false is 404'
  )
  {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/notes/${id}?__includeDeleted=true`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200, 'GET ?__includeDeleted=true finds the tombstone')
    t.match(res.json(), { _id: id, deletedAt: /Z$/ })
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: u.headers })).json().totalResults,
    1,
    'list hides the tombstone'
  )
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/notes?__includeDeleted=true', headers: u.headers })
    t.equal(res.json().totalResults, 2, 'list ?__includeDeleted=true returns it')
    t.ok(res.json().results.some((r: { deletedAt?: string }) => typeof r.deletedAt === 'string'))
  }
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    404,
    'second DELETE of a tombstone is 404'
  )
  t.equal(events.length, 1, 'no second event')
  t.equal(
    (await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'z' } }))
      .statusCode,
    404,
    'PUT of a tombstone is 404'
  )
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { filter: { body: 'a' }, record: { pinned: true } }
    })
    t.equal(res.statusCode, 200)
    const stored = await db.collection('notes').findOne({ body: 'a' })
    t.equal(stored?.pinned, false, 'bulk PUT leaves tombstones alone')
  }
})

t.test('tombstones stay tenant-scoped', async (t) => {
  const { app } = await buildApp(t)
  const a = makeUser()
  const b = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: a.headers, payload: { body: 'a' } })
  ).json()._id
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: b.headers })).statusCode,
    404,
    'another tenant cannot delete'
  )
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: a.headers })
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}?__includeDeleted=true`, headers: b.headers }))
      .statusCode,
    404,
    'another tenant cannot see the tombstone'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes?__includeDeleted=true', headers: b.headers })).json()
      .totalResults,
    0
  )
})

t.test('softDelete: false → hard delete, __includeDeleted ignored, no restore route', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/logs', headers: u.headers, payload: { line: 'x' } })
  ).json()._id
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/logs/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200)
    t.notOk('deletedAt' in res.json(), 'no deletedAt on a hard delete')
  }
  t.equal(await db.collection('logs').countDocuments(), 0, 'removed from the collection')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/logs/${id}?__includeDeleted=true`, headers: u.headers }))
      .statusCode,
    404,
    '__includeDeleted cannot bring it back'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/logs?__includeDeleted=true', headers: u.headers })).json()
      .totalResults,
    0
  )
  {
    const res = await app.inject({ method: 'POST', url: `/api/v1/logs/${id}/restore`, headers: u.headers })
    t.equal(res.statusCode, 404, 'no restore route on a hard-delete schema')
    t.match(
      res.json(),
      { error: { code: 'NOT_FOUND', message: /^route POST/ } },
      'it is the router 404, not a record 404'
    )
  }
  t.equal(app.svc.softDelete?.retentionDays('logs'), undefined)
})

t.test('features.softDelete is set when the plugin is loaded', async (t) => {
  const { app } = await buildApp(t)
  t.equal(app.svc.features.softDelete, true)
})

t.test('registering without core fails at boot', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { default: softDelete } = await import('../src/index.js')
  const app = Fastify({ logger: false })
  app.register(softDelete)
  await t.rejects(async () => {
    await app.ready()
  }, /@svc\/core/)
})
