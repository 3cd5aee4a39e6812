import t from 'tap'
import { buildApp, makeUser } from './helper.js'

// A real refusal from the database, no driver mock: a unique index on `path` makes every
// further notes row a duplicate key, like an audit_log that is full, locked or misconfigured.
t.test('an audit write that fails is parked in audit_failures; the record write still answers and is retried later', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
  await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })

  const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })
  t.equal(res.statusCode, 201, 'the record write is not failed by the audit outage')
  const id = res.json()._id
  t.equal(await db.collection('notes').countDocuments(), 1, 'the record exists')
  t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 0, 'audit_log refused the row')
  const parked = await db.collection('audit_failures').find({}).toArray()
  t.equal(parked.length, 1, 'the row is parked in the outbox')
  t.match(parked[0], { row: { action: 'create', recordId: id, path: 'notes', userId: u.userId }, error: /duplicate key|E11000/i })
  t.equal(String(parked[0]._id), String(parked[0].row._id), 'keyed by the audit row id (idempotent retry)')

  {
    const r = await app.svc.audit!.retryFailures()
    t.same(r, { moved: 0, remaining: 1 }, 'retrying while audit_log still refuses keeps the row parked')
  }
  await db.collection('audit_log').dropIndex('test_blocker')
  {
    const r = await app.svc.audit!.retryFailures()
    t.same(r, { moved: 1, remaining: 0 }, 'moved once audit_log accepts again')
  }
  const row = await db.collection('audit_log').findOne({ recordId: id })
  t.match(row, { _id: parked[0]._id, action: 'create', after: { body: 'a' } }, 'the same row, same id')
  const hist = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: u.headers })
  t.equal(hist.json().totalResults, 1, 'history is complete again')
})

t.test('a retry of a row another replica already moved just clears the outbox', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  const id = (await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })).json()._id
  const row = await db.collection('audit_log').findOne({ recordId: id })
  await db.collection('audit_failures').insertOne({ _id: row!._id, row, error: 'simulated earlier failure', failedAt: new Date() })
  t.same(await app.svc.audit!.retryFailures(), { moved: 1, remaining: 0 })
  t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 1, 'no duplicate row')
})

t.test('the retry timer moves parked rows by itself', async (t) => {
  const { app, db } = await buildApp(t, { audit: { retryIntervalMs: 20 } })
  const u = makeUser()
  await db.collection('audit_log').insertOne({ path: 'notes', blocker: true })
  await db.collection('audit_log').createIndex({ path: 1 }, { unique: true, name: 'test_blocker' })
  const id = (await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'a' } })).json()._id
  t.equal(await db.collection('audit_failures').countDocuments(), 1)
  await db.collection('audit_log').dropIndex('test_blocker')
  for (let i = 0; i < 500 && await db.collection('audit_failures').countDocuments() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(await db.collection('audit_log').countDocuments({ recordId: id }), 1, 'moved by the timer')
})
