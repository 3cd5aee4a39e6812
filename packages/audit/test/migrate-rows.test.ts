import t from 'tap'
import { ObjectId } from 'mongodb'
import type { RequestContext } from '@svc/core'
import { AUDIT_COLLECTION } from '../src/index.js'
import { DURABLE_MODES, buildApp, makeUser } from './helper.js'

const SYSTEM: RequestContext = { identity: null, surface: 'system', system: true }
const notes = [
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'body', type: String, required: true },
      { name: 'tag', type: String }
    ]
  }
]

for (const mode of DURABLE_MODES) {
  t.test(
    `${mode.name}: a migrated record gets one 'migrate' row per migration that changed it, in its history`,
    async (t) => {
      const { app, db } = await buildApp(t, { schemas: notes, core: { transactions: mode.transactions } })
      const u = makeUser()
      const id = (
        await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'Hello' } })
      ).json()._id as string
      const notesService = app.svc.services.get('notes')
      const steps = [
        { name: '0001-tag', up: (r: Record<string, unknown>) => ({ ...r, tag: 'greeting' }) },
        {
          name: '0002-shout',
          up: (r: Record<string, unknown>) => {
            r.body = String(r.body).toUpperCase()
          }
        },
        { name: '0003-noop', up: () => undefined }
      ]
      const result = await notesService.migrateBatch(SYSTEM, { tenant: u.userId, after: null, limit: 10, steps })
      t.match(result, { scanned: 1, migrated: 1, unchanged: 0, lastId: id })
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
      const again = await notesService.migrateBatch(SYSTEM, { tenant: u.userId, after: null, limit: 10, steps })
      t.match(again, { migrated: 0, skipped: 1 }, 'a second batch over the same record finds its markers')
      t.equal(await db.collection(AUDIT_COLLECTION).countDocuments({ action: 'migrate' }), 2)
    }
  )
}

t.test('migrateBatch is an operator operation', async (t) => {
  const { app } = await buildApp(t, { schemas: notes })
  const user: RequestContext = {
    identity: { kind: 'user', userId: new ObjectId().toHexString(), roles: ['admin'] },
    surface: 'rest'
  }
  await t.rejects(
    app.svc.services.get('notes').migrateBatch(user, { tenant: null, after: null, limit: 1, steps: [] }),
    { statusCode: 403, message: /svc schema apply/ }
  )
})
