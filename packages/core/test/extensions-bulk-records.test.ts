import t from 'tap'
import type { WriteResult } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test("wantBulkRecords: bulk results carry each changed record's before/after images", async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const other = makeUser()
  const notes = app.svc.services.get('notes')
  const results: WriteResult[] = []
  notes.onWrite((r) => {
    results.push(r)
  })
  const ids: string[] = []
  for (const body of ['x', 'x', 'y']) {
    ids.push(
      (await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body } })).json()._id
    )
  }
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: other.headers, payload: { body: 'x' } })
  results.length = 0
  await app.inject({
    method: 'PUT',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { filter: { body: 'x' }, record: { pinned: true } }
  })
  t.notOk('records' in results[0], 'not asked: no images, no extra reads')

  notes.wantBulkRecords()
  results.length = 0
  const res = await app.inject({
    method: 'PUT',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { filter: { body: 'x' }, record: { pinned: false } }
  })
  t.same(res.json(), { numAffected: 2 })
  t.equal(results.length, 1, 'still one bulk result (one bulk event)')
  const records = results[0].records ?? []
  t.same(records.map((r) => r.before._id).sort(), ids.slice(0, 2).sort(), "the caller's two matching records only")
  for (const r of records) {
    t.match(r, { before: { pinned: true, body: 'x' }, after: { pinned: false, body: 'x' } })
    t.not(r.before.updatedAt, r.after?.updatedAt)
  }

  results.length = 0
  await app.inject({
    method: 'PUT',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { filter: { body: 'fresh' }, record: { pinned: true } }
  })
  t.same(
    results.map((r) => r.action),
    ['created', 'updated'],
    'an upsert is still a create result plus the bulk result'
  )
  t.same(results[1].records, [], 'with no per-record images (nothing pre-existed)')
})

t.test('app.svc.features starts empty; an onPurge hook sees a hard-deleted record', async (t) => {
  const app = await buildCoreApp(t)
  t.same(app.svc.features, {})
  const u = makeUser()
  const purged: unknown[] = []
  app.svc.services.get('notes').onPurge(({ docs }) => {
    purged.push(...docs.map((d) => String(d._id)))
  })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'gone' } })
  ).json()._id
  const res = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${String(id)}`, headers: u.headers })
  t.equal(res.statusCode, 200, 'DELETE /api/v1/notes/:id')
  t.same(purged, [id], 'the hook got the removed record once')
})
