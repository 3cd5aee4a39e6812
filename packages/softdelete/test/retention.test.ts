import t, { type Test } from 'tap'
import type { Document } from 'mongodb'
import type { FastifyInstance } from 'fastify'
import { buildApp, fakeClock, makeUser, SCHEMAS } from './helper.js'

async function createAndDelete (
  t: Test,
  app: FastifyInstance,
  headers: Record<string, string>,
  path: string,
  payload: Record<string, unknown>
): Promise<string> {
  const id = (await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers, payload })).json()._id
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/${path}/${id}`, headers })).statusCode, 200)
  return id
}

t.test('schema retentionDays: the sweep purges older tombstones and hands them to the purge hooks', async (t) => {
  const clock = fakeClock()
  const schemas = [{ ...SCHEMAS[0], softDelete: { retentionDays: 30 } }, SCHEMAS[2]]
  const purgedDocs: Document[] = []
  const { app, db } = await buildApp(t, {
    schemas,
    softDelete: { now: clock.now },
    before: (app) => {
      app.svc.services.get('notes').onPurge(({ model, docs }) => {
        t.equal(model.path, 'notes')
        purgedDocs.push(...docs)
      })
    }
  })
  const u = makeUser()
  const old = await createAndDelete(t, app, u.headers, 'notes', { body: 'old' })
  clock.advanceDays(20)
  const young = await createAndDelete(t, app, u.headers, 'notes', { body: 'young' })
  const live = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'live' } })
  ).json()._id
  await createAndDelete(t, app, u.headers, 'tags', { name: 'no-retention' })
  t.equal(app.svc.softDelete?.retentionDays('notes'), 30)
  t.equal(app.svc.softDelete?.retentionDays('tags'), undefined, 'no retention configured: kept forever')

  t.same(await app.svc.softDelete!.sweep(), { purged: {} }, 'nothing is 30 days old yet')
  clock.advanceDays(11)
  t.same(await app.svc.softDelete!.sweep(), { purged: { 'v1/notes': 1 } }, 'the 31-day-old tombstone goes')
  t.same(
    purgedDocs.map((d) => String(d._id)),
    [old],
    'the hook got the purged document'
  )
  t.equal(purgedDocs[0].body, 'old', 'as stored, with its fields (file metadata lives there)')
  t.ok(purgedDocs[0].deletedAt instanceof Date)
  const left = (await db.collection('notes').find({}).toArray()).map((d) => String(d._id)).sort()
  t.same(left, [young, live].sort(), 'younger tombstone and live record kept')
  clock.advanceDays(3650)
  await app.svc.softDelete!.sweep()
  t.equal(await db.collection('tags').countDocuments(), 1, 'a schema without retention keeps its tombstones')
  t.equal(await db.collection('notes').countDocuments({ _id: { $exists: true } }), 1, 'live records are never swept')
})

t.test('global retention (option, then SOFT_DELETE_RETENTION_DAYS) and restored records', async (t) => {
  const clock = fakeClock()
  const { app, db } = await buildApp(t, { softDelete: { now: clock.now, retentionDays: 7 } })
  const u = makeUser()
  t.equal(app.svc.softDelete?.retentionDays('notes'), 7)
  const gone = await createAndDelete(t, app, u.headers, 'notes', { body: 'gone' })
  const back = await createAndDelete(t, app, u.headers, 'notes', { body: 'back' })
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${back}/restore`, headers: u.headers })).statusCode,
    200
  )
  clock.advanceDays(8)
  t.same(await app.svc.softDelete!.sweep(), { purged: { 'v1/notes': 1 } })
  t.equal(await db.collection('notes').countDocuments({ body: 'gone' }), 0, `${gone} purged`)
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${back}`, headers: u.headers })).statusCode,
    200,
    'a restored record is not swept'
  )
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${gone}/restore`, headers: u.headers })).statusCode,
    404,
    'a purged record cannot be restored'
  )

  process.env.SOFT_DELETE_RETENTION_DAYS = '12'
  t.teardown(() => {
    delete process.env.SOFT_DELETE_RETENTION_DAYS
  })
  const env = await buildApp(t)
  t.equal(env.app.svc.softDelete?.retentionDays('notes'), 12, 'the environment variable is the fallback')
  process.env.SOFT_DELETE_RETENTION_DAYS = 'soon'
  await t.rejects(buildApp(t), /SOFT_DELETE_RETENTION_DAYS must be a positive number/)
})

t.test('a sweep interval that is not a non-negative integer fails the boot', async (t) => {
  for (const sweepIntervalMs of [-1, 1.5]) {
    await t.rejects(buildApp(t, { softDelete: { sweepIntervalMs } }), /sweepIntervalMs must be a non-negative integer/)
  }
})

t.test('several replicas sweeping at once purge each tombstone exactly once', async (t) => {
  const clock = fakeClock()
  const hookIds: string[] = []
  const { app, db } = await buildApp(t, {
    softDelete: { now: clock.now, retentionDays: 1, sweepBatchSize: 3 },
    before: (app) => {
      app.svc.services.get('notes').onPurge(({ docs }) => {
        hookIds.push(...docs.map((d) => String(d._id)))
      })
    }
  })
  const u = makeUser()
  const ids: string[] = []
  for (let i = 0; i < 10; i++) ids.push(await createAndDelete(t, app, u.headers, 'notes', { body: `n${i}` }))
  clock.advanceDays(2)
  // Three concurrent sweeps over the same collection stand in for three replicas.
  const reports = await Promise.all([
    app.svc.softDelete!.sweep(),
    app.svc.softDelete!.sweep(),
    app.svc.softDelete!.sweep()
  ])
  const total = reports.reduce((n, r) => n + (r.purged['v1/notes'] ?? 0), 0)
  t.equal(total, 10, 'ten purges in all, none counted twice')
  t.same([...hookIds].sort(), [...ids].sort(), 'each purged document reached the hook exactly once')
  t.equal(await db.collection('notes').countDocuments(), 0)
})

t.test('a failing purge hook is logged and does not stop the sweep', async (t) => {
  const clock = fakeClock()
  let second = 0
  const { app, db } = await buildApp(t, {
    softDelete: { now: clock.now, retentionDays: 1 },
    before: (app) => {
      const notes = app.svc.services.get('notes')
      notes.onPurge(() => {
        throw new Error('storage down')
      })
      notes.onPurge(({ docs }) => {
        second += docs.length
      })
    }
  })
  const u = makeUser()
  await createAndDelete(t, app, u.headers, 'notes', { body: 'x' })
  clock.advanceDays(2)
  t.same(await app.svc.softDelete!.sweep(), { purged: { 'v1/notes': 1 } })
  t.equal(second, 1, 'the next hook still ran')
  t.equal(await db.collection('notes').countDocuments(), 0)
})

t.test('the periodic sweep runs on its timer and stops on close', async (t) => {
  const clock = fakeClock()
  clock.advanceDays(-10)
  const { app, db } = await buildApp(t, { softDelete: { now: clock.now, retentionDays: 1, sweepIntervalMs: 20 } })
  const u = makeUser()
  await createAndDelete(t, app, u.headers, 'notes', { body: 'x' })
  clock.advanceDays(5)
  for (let i = 0; i < 500 && (await db.collection('notes').countDocuments()) > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(await db.collection('notes').countDocuments(), 0, 'the timer swept it')
  await app.close()
})
