import t from 'tap'
import type { RecordEvent, WriteResult } from '@svc/core'
import { buildApp, makeUser, SCHEMAS } from './helper.js'

t.test('POST /:id/restore clears deletedAt, returns the record, emits notes.updated', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  const events: RecordEvent[] = []
  app.svc.events.on('notes.updated', (e: RecordEvent) => {
    events.push(e)
  })
  let restored = 0
  app.svc.events.on('notes.restored', () => {
    restored++
  })
  const writes: WriteResult[] = []
  app.svc.services.get('notes').onWrite((r) => {
    writes.push(r)
  })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  {
    const res = await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: u.headers })
    t.equal(res.statusCode, 200, 'restore answers 200')
    t.match(res.json(), { _id: id, body: 'a', userId: u.userId })
    t.notOk('deletedAt' in res.json(), 'the answer is live')
  }
  const stored = await db.collection('notes').findOne({})
  t.notOk(stored != null && 'deletedAt' in stored, 'deletedAt cleared in the database')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    200,
    'readable again'
  )
  t.equal(events.length, 1, 'one notes.updated event')
  t.match(events[0], { recordId: id, before: { deletedAt: /Z$/ } })
  t.equal(restored, 0, 'no notes.restored event')
  t.match(writes.at(-1), { action: 'updated', operation: 'restore', recordId: id }, 'write subscribers see a restore')
  t.notOk('deletedAt' in (writes.at(-1)?.after ?? {}))
  {
    const res = await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: u.headers })
    t.equal(res.statusCode, 404, 'restoring a live record is 404')
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
})

t.test("restore is 404 for unknown, malformed and other tenants' ids; 401/403 without a user", async (t) => {
  const { app } = await buildApp(t)
  const a = makeUser()
  const b = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: a.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: a.headers })
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: b.headers })).statusCode,
    404,
    "another tenant's tombstone is 404"
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/notes/65f000000000000000000000/restore', headers: a.headers }))
      .statusCode,
    404,
    'unknown id'
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/notes/nope/restore', headers: a.headers })).statusCode,
    404,
    'malformed id'
  )
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore` })).statusCode, 401, 'no bearer')
  {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/notes/${id}/restore`,
      headers: { ...a.headers, 'content-type': 'application/json' }
    })
    t.equal(res.statusCode, 200, 'an empty JSON body is fine (restore takes none)')
  }
})

t.test('restore does not fire afterUpdate (nor any update hook)', async (t) => {
  const calls: string[] = []
  const schemas = [
    {
      ...SCHEMAS[0],
      hooks: {
        beforeUpdate: () => {
          calls.push('beforeUpdate')
        },
        afterUpdate: () => {
          calls.push('afterUpdate')
        },
        afterDelete: () => {
          calls.push('afterDelete')
        }
      }
    }
  ]
  const { app } = await buildApp(t, { schemas })
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  calls.length = 0
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: u.headers })).statusCode,
    200
  )
  t.same(calls, [], 'no hook ran for the restore')
})

t.test("a role in acl.delete may restore another tenant's tombstone (same authorisation as delete)", async (t) => {
  const { app } = await buildApp(t)
  const owner = makeUser()
  const mod = makeUser({ roles: ['moderator'] })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: owner.headers, payload: { body: 'a' } })
  ).json()._id
  const del = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: mod.headers })
  if (del.statusCode !== 200) {
    // acl.delete bypass lives in core's tenancy (issue 4); until it lands restore follows delete.
    t.equal(del.statusCode, 404)
    await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: owner.headers })
    t.equal(
      (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: mod.headers })).statusCode,
      404,
      'restore is refused exactly like delete'
    )
    return
  }
  const res = await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: mod.headers })
  t.equal(res.statusCode, 200, 'moderator restores what it could delete')
  t.equal(res.json().userId, owner.userId, 'the record keeps its tenant')
})

t.test('app.svc.softDelete.restore works for other surfaces', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })
  const identity = { kind: 'user' as const, userId: u.userId, roles: ['user'] }
  const rec = await app.svc.softDelete!.restore({ identity, surface: 'graphql' }, 'notes', id)
  t.equal(rec._id, id)
  await t.rejects(app.svc.softDelete!.restore({ identity, surface: 'graphql' }, 'logs', id), /soft delete off/)
})
