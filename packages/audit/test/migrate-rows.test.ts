import t from 'tap'
import { AUDIT_COLLECTION } from '../src/index.js'
import { DURABLE_MODES, buildApp, makeUser } from './helper.js'

// `svc schema apply` as operators run it (`app.svc.evolution.apply`), over migration files: the
// service's own migration batches are core's, not on the `ResourceService` plugins see.
const NOTES = `export default {
  path: 'notes',
  collection: 'notes',
  fields: [
    { name: 'body', type: String, required: true },
    { name: 'tag', type: String }
  ]
}
`
const MIGRATIONS = {
  '0001-tag.mjs': "export default { resources: { notes: { up: (r) => ({ ...r, tag: 'greeting' }) } } }\n",
  '0002-shout.mjs': 'export default { resources: { notes: { up (r) { r.body = String(r.body).toUpperCase() } } } }\n',
  '0003-noop.mjs': 'export default { resources: { notes: { up: () => undefined } } }\n'
}

for (const mode of DURABLE_MODES) {
  t.test(
    `${mode.name}: a migrated record gets one 'migrate' row per migration that changed it, in its history`,
    async (t) => {
      const schemaDir = t.testdir({ versions: { v1: { 'notes.mjs': NOTES } }, migrations: MIGRATIONS })
      const { app, db } = await buildApp(t, { schemas: [], core: { schemaDir, transactions: mode.transactions } })
      const u = makeUser()
      const id = (
        await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'Hello' } })
      ).json()._id as string
      // A canary run (`--tenant`): the migrations stay pending, so a second run is not a no-op by default.
      const result = await app.svc.evolution.apply({ tenant: u.userId })
      t.match(result.resources, [{ resource: 'v1/notes', scanned: 1, migrated: 1, unchanged: 0 }])
      const rows = await db
        .collection(AUDIT_COLLECTION)
        .find({ recordId: id, action: 'migrate' })
        .sort({ _id: 1 })
        .toArray()
      t.equal(rows.length, 2, 'two migrations changed it; the third changed nothing')
      t.match(rows[0], {
        migration: '0001-tag',
        actor: { kind: 'system', userId: null },
        userId: u.userId,
        requestId: null,
        diff: { tag: { from: null, to: 'greeting' } }
      })
      t.match(rows[1], { migration: '0002-shout', diff: { body: { from: 'Hello', to: 'HELLO' } } })
      t.same(Object.keys(rows[1].diff), ['body'])
      const history = (
        await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: u.headers })
      ).json()
      t.match(history.results.slice(0, 2), [
        { action: 'migrate', migration: '0002-shout' },
        { action: 'migrate', migration: '0001-tag' }
      ])
      t.notOk('migration' in history.results[2], 'other entries carry no migration')
      const again = await app.svc.evolution.apply({ tenant: u.userId })
      t.match(again.resources, [{ migrated: 0 }], 'a second run migrates nothing again')
      t.equal(await db.collection(AUDIT_COLLECTION).countDocuments({ action: 'migrate' }), 2, 'and writes no row')
    }
  )
}
