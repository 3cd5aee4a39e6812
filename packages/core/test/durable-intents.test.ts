import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { ObjectId, type Document } from 'mongodb'
import type { FastifyInstance } from 'fastify'
import { INTENTS_COLLECTION } from '../src/kit.js'
import { slotKey } from '../src/service/durable/intents.js'
import { buildCoreApp, makeUser } from './helper.js'
import { SCHEMAS, withLog } from './fixtures/durable-schemas.js'

// The write-ahead path alone (`transactions: false`, as on a standalone server): intents, the
// reconciler's decisions, a writer meeting an abandoned intent. The guarantees both paths share
// are in durable-effects.test.ts.

async function build (
  t: Parameters<typeof buildCoreApp>[0],
  options: Record<string, unknown> = {}
): Promise<FastifyInstance> {
  return await buildCoreApp(t, {
    schemas: SCHEMAS,
    options: { intentReconcileMs: 0, transactions: false, ...options },
    plugins: [withLog]
  })
}

const pending = async (app: FastifyInstance): Promise<number> =>
  await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' })

t.test('reconciliation decides from the records', async (t) => {
  const app = await build(t, { intentLeaseMs: 30 })
  const db = app.svc.db
  const u = makeUser()
  const intents = db.collection(INTENTS_COLLECTION)
  const effects = db.collection('effects')

  // Writes whose effects could not be inserted (the effects collection refuses): they committed,
  // their intents stay pending, as after a crash right after the write.
  await effects.insertOne({ _id: 'blocker', to: null } as Document)
  await effects.createIndex({ to: 1 }, { unique: true, name: 'test_blocker' })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'r' } })
  ).json()._id
  t.equal(
    (await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 1 } })).statusCode,
    200
  )
  t.equal(
    (await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 2 } })).statusCode,
    200
  )
  t.equal(await pending(app), 3, 'create and two updates wait for their effects')
  await effects.dropIndex('test_blocker')
  await effects.deleteOne({ _id: 'blocker' } as Document)

  // A write that never happened: its intent names the record's current state as `from`.
  const rec = await db.collection('tasks').findOne({ _id: new ObjectId(id) })
  const from = rec!.updatedAt.getTime()
  const ghost = (recordId: ObjectId, f: number | null, to: number | null, group: string): Document => ({
    _id: slotKey('tasks', recordId, f),
    state: 'pending',
    coll: 'tasks',
    recordId,
    from: f,
    to,
    group,
    leader: true,
    effects: [{ collection: 'effects', document: { _id: `${group}:ghost`, action: 'ghost' } }],
    leaseUntil: new Date(0),
    createdAt: new Date()
  })
  await intents.insertOne(ghost(new ObjectId(id), from, from + 5, 'g1') as never)
  await intents.insertOne(ghost(new ObjectId(), null, Date.now(), 'g2') as never) // a create that never inserted
  await sleep(40)
  t.same(await app.svc.services.reconcileIntents(), { happened: 3, dropped: 2 })
  t.equal(
    await effects.countDocuments({ recordId: id }),
    3,
    'the create (record moved on since), both updates: effects inserted'
  )
  t.equal(await effects.countDocuments({ action: 'ghost' }), 0, 'writes that did not happen leave nothing')
  t.equal(await pending(app), 0)
  t.same(await app.svc.services.reconcileIntents(), { happened: 0, dropped: 0 }, 'a second pass finds nothing')
})

t.test('a writer meeting an abandoned intent on its record settles it and proceeds', async (t) => {
  const app = await build(t, { intentLeaseMs: 30 })
  const db = app.svc.db
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'x' } })
  ).json()._id
  const _id = new ObjectId(id)
  const from = (await db.collection('tasks').findOne({ _id }))!.updatedAt.getTime()
  await db.collection(INTENTS_COLLECTION).insertOne({
    _id: slotKey('tasks', _id, from),
    state: 'pending',
    coll: 'tasks',
    recordId: _id,
    from,
    to: from + 1,
    group: 'dead',
    leader: true,
    effects: [],
    leaseUntil: new Date(Date.now() - 1),
    createdAt: new Date()
  } as never)
  const res = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 5 } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().n, 5)
  t.equal(
    await db.collection(INTENTS_COLLECTION).countDocuments({ group: 'dead' }),
    0,
    'the dead intent was dropped (its write never happened)'
  )
  t.equal(await pending(app), 0)
})
