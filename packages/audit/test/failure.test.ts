import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { ObjectId } from 'mongodb'
import { INTENTS_COLLECTION } from '@svc/core/kit'
import { buildApp, makeUser } from './helper.js'

// A real refusal from the database, no driver mock: a unique index on `path` makes every
// further notes row a duplicate key, like an audit_log that is full, locked or misconfigured.
t.test(
  'intents: audit_log refusing a row: the write answers, its intent stays pending, the reconciler inserts the row later',
  async (t) => {
    const { app, db } = await buildApp(t, { core: { intentLeaseMs: 50, intentReconcileMs: 0, transactions: false } })
    const u = makeUser()
    await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
    await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })

    const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
    t.equal(res.statusCode, 201, 'the committed record write is answered')
    const id = res.json()._id
    t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 0, 'audit_log refused the row')
    const pending = await db.collection(INTENTS_COLLECTION).find({ state: 'pending' }).toArray()
    t.equal(pending.length, 1, 'the write intent is kept')
    t.match(pending[0], {
      recordId: new ObjectId(id),
      effects: [{ collection: 'audit_log', document: { action: 'create', recordId: id } }]
    })

    await sleep(60)
    t.same(
      await app.svc.services.reconcileIntents(),
      { happened: 0, dropped: 0 },
      'still refused: nothing settled, the intent waits for the next pass'
    )
    t.equal(await db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' }), 1)
    await db.collection('audit_log').dropIndex('test_blocker')
    await sleep(60)
    t.same(
      await app.svc.services.reconcileIntents(),
      { happened: 1, dropped: 0 },
      'settled once audit_log accepts again'
    )
    t.equal(await db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' }), 0, 'nothing left pending')
    const row = await db.collection('audit_log').findOne({ recordId: id })
    t.match(
      row,
      { _id: pending[0].effects[0].document._id, action: 'create', after: { body: 'a' } },
      'the row built with the write, same id'
    )
    const hist = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: u.headers })
    t.equal(hist.json().totalResults, 1, 'history is complete again')
  }
)

t.test('intents: the periodic pass settles by itself', async (t) => {
  const { app, db } = await buildApp(t, { core: { intentLeaseMs: 20, intentReconcileMs: 20, transactions: false } })
  const u = makeUser()
  await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
  await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  ).json()._id
  t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 0)
  await db.collection('audit_log').dropIndex('test_blocker')
  for (let i = 0; i < 500 && (await db.collection('audit_log').countDocuments({ recordId: id })) === 0; i++) {
    await sleep(20)
  }
  t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 1, 'inserted by the timer')
})

t.test(
  'transactions: audit_log refusing a row refuses the write — no record without its row, nothing to reconcile',
  async (t) => {
    const { app, db } = await buildApp(t)
    t.equal(app.svc.transactions, true)
    const u = makeUser()
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
    ).json()._id
    await db.collection('audit_log').deleteMany({})
    await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
    await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })

    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { body: 'b' }
    })
    t.equal(created.statusCode, 500, 'refused with the row')
    t.equal(await db.collection('notes').countDocuments({ body: 'b' }), 0, 'no record')
    t.equal(
      (await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'c' } }))
        .statusCode,
      500
    )
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode, 500)
    t.match(
      await db.collection('notes').findOne({}),
      { body: 'a', deletedAt: null },
      'neither the update nor the delete landed'
    )
    t.equal(await db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'no intent: nothing to settle later')

    await db.collection('audit_log').dropIndex('test_blocker')
    t.equal(
      (await app.inject({ method: 'PUT', url: `/api/v1/notes/${id}`, headers: u.headers, payload: { body: 'd' } }))
        .statusCode,
      200,
      'accepted again'
    )
    t.match(
      await db.collection('audit_log').findOne({ recordId: id, action: 'update' }),
      { before: { body: 'a' }, after: { body: 'd' } },
      'the row of the write that landed, from the state before it'
    )
  }
)

t.test('rows parked in audit_failures by an earlier version move to audit_log at start-up, once', async (t) => {
  const rowId = new ObjectId()
  const dupId = new ObjectId()
  const row = (id: ObjectId): Record<string, unknown> => ({
    _id: id,
    action: 'create',
    recordId: new ObjectId().toHexString(),
    path: 'notes',
    version: 'v1',
    userId: 'u1',
    actor: { kind: 'system', userId: null, roles: [] },
    before: null,
    after: {},
    diff: {},
    requestId: null,
    at: new Date()
  })
  const { db } = await buildApp(t, {
    before: async (db) => {
      await db.collection('audit_log').insertOne(row(dupId)) // already moved by another replica
      await db.collection('audit_failures').insertMany([
        { _id: rowId, row: row(rowId), error: 'old', failedAt: new Date() },
        { _id: dupId, row: row(dupId), error: 'old', failedAt: new Date() }
      ] as never[])
    }
  })
  t.equal(await db.collection('audit_failures').countDocuments(), 0, 'outbox emptied')
  t.equal(await db.collection('audit_log').countDocuments({ _id: { $in: [rowId, dupId] } }), 2, 'each row once')
})

t.test('a parked row audit_log still refuses stays parked', async (t) => {
  const rowId = new ObjectId()
  const { db } = await buildApp(t, {
    before: async (db) => {
      await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
      await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })
      await db.collection('audit_failures').insertOne({
        _id: rowId,
        row: { _id: rowId, path: 'notes', action: 'create' },
        error: 'old',
        failedAt: new Date()
      } as never)
    }
  })
  t.equal(await db.collection('audit_failures').countDocuments({ _id: rowId }), 1, 'kept for the next start')
  t.equal(await db.collection('audit_log').countDocuments({ _id: rowId }), 0)
})
