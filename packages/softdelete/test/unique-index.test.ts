import t from 'tap'
import { buildApp, fakeClock, makeUser } from './helper.js'

// Decision: a tombstone keeps its unique key. Re-creating it is 409 until the tombstone is
// restored or purged, so a restore can never collide with a newer record.
t.test('unique compositeIndex with tombstones: re-create is 409, restore still works', async (t) => {
  const clock = fakeClock()
  const { app } = await buildApp(t, { softDelete: { now: clock.now, retentionDays: 30 } })
  const u = makeUser()
  const other = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tags', headers: u.headers, payload: { name: 'vip' } })
  ).json()._id
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/tags/${id}`, headers: u.headers })).statusCode, 200)
  {
    const res = await app.inject({ method: 'POST', url: '/api/v1/tags', headers: u.headers, payload: { name: 'vip' } })
    t.equal(res.statusCode, 409, 're-create while the tombstone exists is 409')
    t.equal(res.json().error.code, 'CONFLICT')
    t.same(res.json().error.details.keys, ['name'], 'names the field, never a value')
  }
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/tags', headers: other.headers, payload: { name: 'vip' } }))
      .statusCode,
    201,
    'other tenants are unaffected'
  )
  {
    const res = await app.inject({ method: 'POST', url: `/api/v1/tags/${id}/restore`, headers: u.headers })
    t.equal(res.statusCode, 200, 'restore after the refused re-create works')
    t.equal(res.json().name, 'vip')
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/tags', headers: u.headers })).json().totalResults,
    1,
    'exactly one vip'
  )
  // Once purged, the key is free again.
  await app.inject({ method: 'DELETE', url: `/api/v1/tags/${id}`, headers: u.headers })
  clock.advanceDays(31)
  await app.svc.softDelete!.sweep()
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/tags', headers: u.headers, payload: { name: 'vip' } }))
      .statusCode,
    201,
    're-create after the purge succeeds'
  )
})
