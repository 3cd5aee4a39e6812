import t from 'tap'
import { buildApp, makeUser } from './helper.js'

t.test('core without @svc/softdelete and @svc/audit: hard delete, no audit rows, no extra routes', async (t) => {
  const { app, db } = await buildApp(t, { softDelete: false, audit: false })
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'b' } })
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200)
    t.notOk('deletedAt' in res.json(), 'no tombstone')
  }
  t.equal(
    await db.collection('notes').countDocuments(),
    0,
    'removed for good although the schema says softDelete: true'
  )
  t.equal(await db.collection('audit_log').countDocuments(), 0, 'no audit rows although the schema says audit: true')
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: u.headers })).statusCode,
    404,
    'no restore route'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: u.headers })).statusCode,
    404,
    'no history route'
  )
  t.same(app.svc.features, {}, 'features: neither softDelete nor audit')
  t.equal(app.svc.softDelete, undefined)
  t.equal(app.svc.audit, undefined)
})

t.test('audit without soft delete: delete rows are hard deletes', async (t) => {
  const { app, db } = await buildApp(t, { softDelete: false })
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  t.match(await db.collection('audit_log').findOne({ action: 'delete' }), { recordId: id, after: null })
  t.same(app.svc.features, { audit: true })
})
