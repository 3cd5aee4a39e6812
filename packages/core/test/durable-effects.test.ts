import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { ObjectId, type Document } from 'mongodb'
import type { FastifyInstance } from 'fastify'
import { INTENTS_COLLECTION, type DurableDoc, type WriteResult } from '../src/index.js'
import { slotKey } from '../src/service/durable/intents.js'
import { buildCoreApp, makeUser } from './helper.js'

const SCHEMAS = [{
  path: 'tasks',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'n', type: Number },
    { name: 'status', type: String, stateMachine: { initial: 'open', states: ['open', 'done'], transitions: { open: ['done'], done: ['open'] } } }
  ],
  compositeIndex: [{ userId: 1, title: 1 }]
}]

/** An effect writing one `effects` row per write result, keyed by writeId + action (deterministic). */
function logEffect (result: WriteResult): DurableDoc[] {
  if (result.after?.title === 'boom') throw new Error('effect refused')
  return [{
    collection: 'effects',
    document: { _id: `${result.writeId}:${result.action}`, writeId: result.writeId, action: result.action, recordId: result.recordId ?? null, numAffected: result.numAffected ?? null, to: result.transition?.to ?? null, after: result.after ?? null }
  }]
}

async function build (t: Parameters<typeof buildCoreApp>[0], options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  return await buildCoreApp(t, {
    schemas: SCHEMAS,
    options: { intentReconcileMs: 0, ...options },
    plugins: [async (app) => { app.svc.services.get('tasks').addDurableEffect('log', logEffect) }]
  })
}

const pending = async (app: FastifyInstance): Promise<number> => await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' })

t.test('every write leaves its effect documents; one writeId per write', async (t) => {
  const app = await build(t)
  const u = makeUser()
  const effects = app.svc.db.collection('effects')
  const created = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } })
  t.equal(created.statusCode, 201)
  const id = created.json()._id
  t.match(await effects.find({ recordId: id }).toArray(), [{ action: 'created', after: { title: 'a', status: 'open' } }])

  const put = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 2, status: 'done' } })
  t.equal(put.statusCode, 200)
  const rows = await effects.find({ recordId: id, action: { $in: ['updated', 'transitioned'] } }).toArray()
  t.equal(rows.length, 2, 'updated + transitioned')
  t.equal(rows[0].writeId, rows[1].writeId, 'one write, one writeId')
  t.equal(rows.find((r) => r.action === 'transitioned')?.to, 'done')
  t.equal(rows[0].after.updatedAt, put.json().updatedAt, 'the image the write produced')

  await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'b' } })
  const bulk = await app.inject({ method: 'PUT', url: '/api/v1/tasks', headers: u.headers, payload: { filter: {}, record: { n: 9 } } })
  t.same(bulk.json(), { numAffected: 2 })
  t.equal(await effects.countDocuments({ action: 'updated', numAffected: 2 }), 1, 'one effect for the bulk write')

  const del = await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: u.headers })
  t.equal(del.statusCode, 200)
  t.equal(await effects.countDocuments({ recordId: id, action: 'deleted', after: null }), 1)
  t.equal(await pending(app), 0, 'no intent left pending')
  t.ok(await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'done' }) >= 4, 'completed intents stay as markers')

  const other = makeUser()
  const foreign = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${created.json()._id}`, headers: other.headers, payload: { n: 1 } })
  t.equal(foreign.statusCode, 404)
  const before = await effects.countDocuments()
  t.equal((await app.inject({ method: 'PUT', url: '/api/v1/tasks', headers: other.headers, payload: { filter: {}, record: { n: 1 } } })).json().numAffected, 0)
  t.equal(await effects.countDocuments({ numAffected: { $ne: 0 } }), before, 'another tenant\'s writes touch none of these records')
})

t.test('a throwing build refuses the write before anything is written', async (t) => {
  const app = await build(t)
  const u = makeUser()
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'boom' } })
  t.equal(res.statusCode, 500)
  t.equal(res.json().error.code, 'INTERNAL')
  t.equal(await app.svc.db.collection('tasks').countDocuments(), 0, 'no record')
  t.equal(await app.svc.db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'no intent')
  const id = (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'ok' } })).json()._id
  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { title: 'boom' } })).statusCode, 500)
  t.equal((await app.svc.db.collection('tasks').findOne({}))?.title, 'ok', 'the update did not land')
  t.equal(await pending(app), 0)
})

t.test('a malformed effect document is refused like a throw', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: SCHEMAS,
    options: { intentReconcileMs: 0 },
    plugins: [async (app) => { app.svc.services.get('tasks').addDurableEffect('bad', () => [{ collection: 'x', document: { no: 'id' } }] as never) }]
  })
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: makeUser().headers, payload: { title: 'a' } })
  t.equal(res.statusCode, 500)
  t.equal(await app.svc.db.collection('tasks').countDocuments(), 0)
  t.throws(() => app.svc.services.get('tasks').addDurableEffect('bad', () => []), /already registered/)
})

t.test('a write the database refuses leaves no effect and no pending intent', async (t) => {
  const app = await build(t)
  const u = makeUser()
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'same' } })).statusCode, 201)
  const dup = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'same' } })
  t.equal(dup.statusCode, 409, 'compositeIndex refusal')
  t.equal(await app.svc.db.collection('effects').countDocuments(), 1, 'only the first create has its effect')
  t.equal(await pending(app), 0, 'the refused write\'s intent is dropped at once')
})

t.test('concurrent writers of one record: each write lands once with its effect', async (t) => {
  const app = await build(t)
  const u = makeUser()
  const id = (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'race' } })).json()._id
  const puts = await Promise.all(Array.from({ length: 10 }, async (_, i) => await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: i } })))
  t.ok(puts.every((r) => r.statusCode === 200), 'plain updates all land (re-planned after a lost race)')
  const rows = await app.svc.db.collection('effects').find({ recordId: id, action: 'updated' }).toArray()
  t.equal(rows.length, 10, 'one effect per update')
  const chain = rows.map((r) => r.after.updatedAt).sort()
  t.equal(new Set(chain).size, 10, 'each update moved updatedAt to a new value')
  const stored = await app.svc.db.collection('tasks').findOne({})
  t.equal(stored?.updatedAt.toISOString(), chain[9], 'the record is the last write\'s image')
  t.equal(stored?.n, rows.find((r) => r.after.updatedAt === chain[9])?.after.n)

  const moves = await Promise.all(Array.from({ length: 10 }, async () => await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { status: 'done' } })))
  t.ok(moves.some((r) => r.statusCode === 200))
  t.equal(await app.svc.db.collection('effects').countDocuments({ recordId: id, action: 'transitioned' }), 1, 'exactly one transition landed')
  t.equal(await pending(app), 0)
})

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
  const id = (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'r' } })).json()._id
  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 1 } })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 2 } })).statusCode, 200)
  t.equal(await pending(app), 3, 'create and two updates wait for their effects')
  await effects.dropIndex('test_blocker')
  await effects.deleteOne({ _id: 'blocker' } as Document)

  // A write that never happened: its intent names the record's current state as `from`.
  const rec = await db.collection('tasks').findOne({ _id: new ObjectId(id) })
  const from = rec!.updatedAt.getTime()
  const ghost = (recordId: ObjectId, f: number | null, to: number | null, group: string): Document => ({
    _id: slotKey('tasks', recordId, f), state: 'pending', coll: 'tasks', recordId, from: f, to, group, leader: true,
    effects: [{ collection: 'effects', document: { _id: `${group}:ghost`, action: 'ghost' } }], leaseUntil: new Date(0), createdAt: new Date()
  })
  await intents.insertOne(ghost(new ObjectId(id), from, from + 5, 'g1') as never)
  await intents.insertOne(ghost(new ObjectId(), null, Date.now(), 'g2') as never) // a create that never inserted
  await sleep(40)
  t.same(await app.svc.services.reconcileIntents(), { happened: 3, dropped: 2 })
  t.equal(await effects.countDocuments({ recordId: id }), 3, 'the create (record moved on since), both updates: effects inserted')
  t.equal(await effects.countDocuments({ action: 'ghost' }), 0, 'writes that did not happen leave nothing')
  t.equal(await pending(app), 0)
  t.same(await app.svc.services.reconcileIntents(), { happened: 0, dropped: 0 }, 'a second pass finds nothing')
})

t.test('a writer meeting an abandoned intent on its record settles it and proceeds', async (t) => {
  const app = await build(t, { intentLeaseMs: 30 })
  const db = app.svc.db
  const u = makeUser()
  const id = (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'x' } })).json()._id
  const _id = new ObjectId(id)
  const from = (await db.collection('tasks').findOne({ _id }))!.updatedAt.getTime()
  await db.collection(INTENTS_COLLECTION).insertOne({ _id: slotKey('tasks', _id, from), state: 'pending', coll: 'tasks', recordId: _id, from, to: from + 1, group: 'dead', leader: true, effects: [], leaseUntil: new Date(Date.now() - 1), createdAt: new Date() } as never)
  const res = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: 5 } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().n, 5)
  t.equal(await db.collection(INTENTS_COLLECTION).countDocuments({ group: 'dead' }), 0, 'the dead intent was dropped (its write never happened)')
  t.equal(await pending(app), 0)
})

t.test('a document already there (same _id) counts as written; an effect must answer an array', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: SCHEMAS,
    options: { intentReconcileMs: 0 },
    plugins: [async (app) => {
      const tasks = app.svc.services.get('tasks')
      tasks.addDurableEffect('fixed', (r) => r.action === 'created' ? [{ collection: 'fixed', document: { _id: 'one', v: 1 } }] : [])
      tasks.addDurableEffect('async', async (r) => {
        if (r.after?.title === 'not-array') return { collection: 'x' } as never
        return [{ collection: 'async', document: { _id: `${r.writeId}:${r.action}` } }]
      })
    }]
  })
  const u = makeUser()
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } })).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'b' } })).statusCode, 201, 'the replayed _id is not an error')
  t.equal(await app.svc.db.collection('fixed').countDocuments(), 1)
  t.equal(await app.svc.db.collection('async').countDocuments(), 2, 'async builders are awaited')
  t.equal(await pending(app), 0)
  const bad = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'not-array' } })
  t.equal(bad.statusCode, 500)
  t.equal(await app.svc.db.collection('tasks').countDocuments({ title: 'not-array' }), 0)
})

t.test('bulk PUT upsert and bulk PUT on nothing go through the same path', async (t) => {
  const app = await build(t)
  const u = makeUser()
  const up = await app.inject({ method: 'PUT', url: '/api/v1/tasks', headers: u.headers, payload: { filter: { title: 'seeded' }, record: { n: 1 } } })
  t.same(up.json(), { numAffected: 1 })
  const rec = await app.svc.db.collection('tasks').findOne({ title: 'seeded' })
  t.match(rec, { n: 1, status: 'open', userId: u.userId })
  t.ok(rec?.createdAt instanceof Date && rec.updatedAt instanceof Date)
  const effects = await app.svc.db.collection('effects').find({}).toArray()
  t.same(effects.map((e) => e.action).sort(), ['created', 'updated'], 'the upsert\'s create and the bulk result')
  t.equal(effects[0].writeId, effects[1].writeId)
  const none = await app.inject({ method: 'PUT', url: '/api/v1/tasks', headers: u.headers, payload: { filter: { n: { $gt: 99 } }, record: { n: 5 } } })
  t.same(none.json(), { numAffected: 0 }, 'nothing matches and no valid record can be seeded: nothing written')
  t.equal(await app.svc.db.collection('effects').countDocuments(), 2, 'and leaves no effect')
  t.equal(await pending(app), 0)
})
