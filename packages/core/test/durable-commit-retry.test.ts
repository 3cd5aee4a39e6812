import t from 'tap'
import type { Db, Document } from 'mongodb'
import { getFailPointTestDb, type Teardownable } from '@svc/testkit'
import { buildCoreApp, makeUser } from './helper.js'
import { SCHEMAS, withLog } from './fixtures/durable-schemas.js'

// The commit of a durable write's transaction, made to fail by the server (devdb's failCommand
// fail point, as mongod's with test commands): a commit whose result is unknown is committed again
// and lands once; a transient failure plans the write again; any other failure is the client's
// envelope, with nothing written.

async function setup (t: Teardownable): Promise<{ app: Awaited<ReturnType<typeof buildCoreApp>>; db: Db; admin: Db }> {
  const { db, client } = await getFailPointTestDb(t)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog], options: { transactions: true } })
  const admin = client.db('admin')
  t.teardown(async () => {
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })
  })
  return { app, db, admin }
}

async function failCommit (admin: Db, mode: unknown, data: Document): Promise<void> {
  await admin.command({
    configureFailPoint: 'failCommand',
    mode,
    data: { failCommands: ['commitTransaction'], ...data }
  })
}

/** How often the fail point fired since it was last configured (it is turned off here). */
async function timesFired (admin: Db): Promise<number> {
  return (await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })).count
}

async function transactions (admin: Db): Promise<{ totalCommitted: number; totalAborted: number }> {
  return (await admin.command({ serverStatus: 1 })).transactions
}

t.test('an unknown commit result: the commit is sent again and the write lands exactly once', async (t) => {
  const { app, db, admin } = await setup(t)
  const u = makeUser()
  const before = await transactions(admin)
  // The driver retries a commit once on a retryable error (ShutdownInProgress: RetryableWriteError),
  // then labels the second failure UnknownTransactionCommitResult: core's own retry sends the third.
  await failCommit(admin, { times: 2 }, { errorCode: 91 })
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'once' } })
  t.equal(res.statusCode, 201, 'created')
  t.equal(await timesFired(admin), 2, 'both failed commits reached the server')
  const id = res.json()._id
  t.equal(await db.collection('tasks').countDocuments({ title: 'once' }), 1, 'one record')
  t.same(
    (await db.collection('effects').find({ recordId: id }).toArray()).map((e) => e.action),
    ['created'],
    'one effect row'
  )
  const after = await transactions(admin)
  t.equal(after.totalCommitted - before.totalCommitted, 1, 'one transaction committed')
  t.equal(after.totalAborted - before.totalAborted, 0, 'none aborted')
})

t.test('an update whose commit result is unknown is applied and logged once', async (t) => {
  const { app, db, admin } = await setup(t)
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'counter', n: 1 } })
  ).json()._id
  await failCommit(admin, { times: 2 }, { errorCode: 189 })
  const res = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 2 } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().n, 2)
  t.equal(await timesFired(admin), 2)
  const effects = await db.collection('effects').find({ recordId: id }).toArray()
  t.same(effects.map((e) => e.action).sort(), ['created', 'updated'], 'one effect row for the update')
  const read = await app.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: u.headers })
  t.equal(read.json().n, 2, 'the record holds the update')
})

t.test('a transient commit failure: the transaction is planned again and commits once', async (t) => {
  const { app, db, admin } = await setup(t)
  const u = makeUser()
  const before = await transactions(admin)
  await failCommit(admin, { times: 1 }, { errorCode: 112, errorLabels: ['TransientTransactionError'] })
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/tasks',
    headers: u.headers,
    payload: { title: 'replanned' }
  })
  t.equal(res.statusCode, 201)
  t.equal(await timesFired(admin), 1)
  t.equal(await db.collection('tasks').countDocuments({ title: 'replanned' }), 1, 'one record')
  t.equal(await db.collection('effects').countDocuments({ recordId: res.json()._id }), 1, 'one effect row')
  const after = await transactions(admin)
  t.equal(after.totalCommitted - before.totalCommitted, 1, 'the second transaction committed')
  t.equal(after.totalAborted - before.totalAborted, 1, 'the first was aborted, not committed')
})

t.test('a commit refused for good is the right envelope, and nothing is written', async (t) => {
  const { app, db, admin } = await setup(t)
  const u = makeUser()
  {
    await failCommit(admin, { times: 1 }, { errorCode: 2, errorLabels: [] })
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'badvalue' }
    })
    t.equal(res.statusCode, 500, 'a server error: 500')
    t.equal(res.json().error.code, 'INTERNAL')
    t.equal(await timesFired(admin), 1, 'not retried')
  }
  {
    await failCommit(admin, { times: 1 }, { errorCode: 11000 })
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'dup' }
    })
    t.equal(res.statusCode, 409, 'a duplicate key at commit: 409')
    t.equal(res.json().error.code, 'CONFLICT')
  }
  {
    await failCommit(admin, { times: 1 }, { errorCode: 50 })
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'slow' }
    })
    t.equal(res.statusCode, 503, 'a commit past maxTimeMS is not retried: 503')
    t.equal(res.json().error.code, 'QUERY_TIMEOUT')
  }
  t.equal(await db.collection('tasks').countDocuments({ title: { $in: ['badvalue', 'dup', 'slow'] } }), 0, 'no record')
  t.equal(await db.collection('effects').countDocuments(), 0, 'no effect row')
  const list = await app.inject({ method: 'GET', url: '/api/v1/tasks', headers: u.headers })
  t.same(list.json().results, [], 'the tenant sees nothing')
  const ok = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'after' } })
  t.equal(ok.statusCode, 201, 'the next write commits')
})

// 91 ShutdownInProgress makes the driver select the server again between commits; 262
// ExceededTimeLimit does not, so only core's own pause spaces those retries.
for (const errorCode of [91, 262]) {
  t.test(`a commit result that stays unknown (${errorCode}) ends in 503 with nothing written`, async (t) => {
    const { app, db, admin } = await setup(t)
    const u = makeUser()
    await failCommit(admin, 'alwaysOn', { errorCode })
    const started = Date.now()
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'never' }
    })
    const fired = await timesFired(admin)
    t.equal(res.statusCode, 503, 'the database is unavailable')
    t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
    t.ok(Date.now() - started < 15_000, `gave up after ${Date.now() - started} ms`)
    // Retries back off: a handful of commits a second until the deadline, never a tight loop.
    t.ok(fired >= 2 && fired <= 100, `the commit was tried ${fired} times`)
    t.equal(await db.collection('tasks').countDocuments({ title: 'never' }), 0, 'no record')
    t.equal(await db.collection('effects').countDocuments(), 0, 'no effect row')
  })
}
