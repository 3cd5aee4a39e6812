import t from 'tap'
import type { RecordEvent } from '@svc/core'
import { buildApp, createRecord, download, makeUser, schemas, upload, type Storage } from './helper.js'
import { png } from './fixtures/content.js'

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: soft delete keeps the blob but unreachable, restore brings it back`, async (t) => {
    const { app, blobs } = await buildApp(t, { storage })
    const u = makeUser()
    const id = await createRecord(app, u)
    const image = png(800)
    const meta = (await upload(app, u, `/api/v1/contacts/${id}/avatar`, image)).json()
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}`, headers: u.headers })).statusCode,
      200,
      'soft delete'
    )
    t.same(await blobs(), [meta.key], 'the blob is kept')
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })).statusCode,
      404,
      'fetch of a tombstoned record: 404'
    )
    t.equal((await download(app, meta.url)).status, 404, 'its URL serves nothing while tombstoned')
    t.equal(
      (await upload(app, u, `/api/v1/contacts/${id}/avatar`, png(100))).statusCode,
      404,
      'no upload onto a tombstone'
    )

    t.equal(
      (await app.inject({ method: 'POST', url: `/api/v1/contacts/${id}/restore`, headers: u.headers })).statusCode,
      200,
      'restore'
    )
    t.same((await download(app, meta.url)).body, image, 'reachable again at the same URL')
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })).statusCode,
      200
    )
  })

  t.test(`${storage}: hard delete removes the blobs`, async (t) => {
    const { app, blobs } = await buildApp(t, { storage })
    const u = makeUser()
    const id = await createRecord(app, u, 'logs', { line: 'x' })
    await upload(app, u, `/api/v1/logs/${id}/attachment`, png(300))
    t.equal((await blobs()).length, 1)
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/logs/${id}`, headers: u.headers })).statusCode, 200)
    t.same(await blobs(), [], 'no soft delete: the blob goes with the record')
  })

  t.test(`${storage}: the retention sweep of @svc/softdelete removes blobs of purged tombstones`, async (t) => {
    const { app, blobs } = await buildApp(t, {
      storage,
      schemas: schemas(storage).map((s: any) =>
        s.path === 'contacts' ? { ...s, softDelete: { retentionDays: 1 } } : s
      )
    })
    const u = makeUser()
    const keep = await createRecord(app, u)
    const gone = await createRecord(app, u)
    const kept = (await upload(app, u, `/api/v1/contacts/${keep}/avatar`, png(300))).json()
    await upload(app, u, `/api/v1/contacts/${gone}/avatar`, png(300))
    await upload(app, u, `/api/v1/contacts/${gone}/contract`, Buffer.from('%PDF-1.4\n%%EOF\n'))
    await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${gone}`, headers: u.headers })
    t.equal((await blobs()).length, 3)
    await app.svc.db
      .collection('contacts')
      .updateOne({ deletedAt: { $ne: null } }, { $set: { deletedAt: new Date(Date.now() - 2 * 86_400_000) } })
    t.match(await app.svc.softDelete!.sweep(), { purged: { 'v1/contacts': 1 } })
    t.same(await blobs(), [kept.key], 'both blobs of the purged record are gone, the live one stays')
  })
}

t.test('uploads and file deletes fire no hooks, write audit rows and emit <path>.updated', async (t) => {
  const calls: string[] = []
  const hooks = Object.fromEntries(
    ['beforeUpdate', 'afterUpdate', 'beforeCreate', 'afterCreate', 'beforeDelete', 'afterDelete'].map((h) => [
      h,
      ({ input }: { input?: unknown }) => {
        calls.push(h)
        return input
      }
    ])
  )
  const { app } = await buildApp(t, { schemas: schemas('local', hooks) })
  const u = makeUser()
  const id = await createRecord(app, u)
  calls.length = 0
  const events: RecordEvent[] = []
  app.svc.events.on('contacts.updated', (e: RecordEvent) => {
    events.push(e)
  })
  const meta = (await upload(app, u, `/api/v1/contacts/${id}/avatar`, png(300))).json()
  await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })
  t.same(calls, [], 'no lifecycle hook ran')
  t.equal(events.length, 2, 'one contacts.updated per change')
  t.match(events[0], { userId: u.userId, recordId: id, record: { avatar: { key: meta.key } } })
  t.notOk('avatar' in events[1].record!, 'the delete event carries the cleared record')
  const history = (
    await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/history`, headers: u.headers })
  ).json()
  t.same(
    history.results.map((r: { action: string }) => r.action),
    ['update', 'update', 'create'],
    'audit rows, newest first'
  )
  t.match(
    history.results[1],
    { diff: { avatar: { from: null, to: { key: meta.key, size: meta.size } } } },
    'the upload row'
  )
  t.match(history.results[0], { diff: { avatar: { from: { key: meta.key }, to: null } } }, 'the delete row')
})
