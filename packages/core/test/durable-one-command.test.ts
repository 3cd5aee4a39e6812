import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb'
import { getFailPointTestDb, getTestDb, type Teardownable } from '@svc/testkit'
import { buildCoreApp, makeUser } from './helper.js'
import { SCHEMAS, withLog } from './fixtures/durable-schemas.js'
import { buildLogApp, stamped } from './fixtures/event-log-app.js'

// On a server with the bulkWrite command (MongoDB 8.0+, devdb), a create's record and its effect
// documents go in one command inside the transaction, then the commit: two round trips where the
// statement-by-statement path takes one per collection plus the commit. Same outcomes either way.

/** A client of its own that records the commands core sends (monitoring is set at construction). */
async function watched (t: Teardownable, uri: string): Promise<{ db: Db; seen: CommandStartedEvent[] }> {
  const client = new MongoClient(uri, { monitorCommands: true })
  await client.connect()
  t.teardown(async () => await client.close())
  const seen: CommandStartedEvent[] = []
  client.on('commandStarted', (e) => seen.push(e))
  return { db: client.db(), seen }
}

const WRITES = new Set(['insert', 'bulkWrite', 'commitTransaction', 'abortTransaction'])
const writesOf = (seen: CommandStartedEvent[]): string[] =>
  seen.filter((e) => WRITES.has(e.commandName)).map((e) => e.commandName)

t.test('a create: its record and effect row in one bulkWrite, then the commit', async (t) => {
  const { uri } = await getTestDb(t)
  const { db, seen } = await watched(t, uri)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  const u = makeUser()
  seen.length = 0
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'one' } })
  t.equal(res.statusCode, 201)
  t.same(writesOf(seen), ['bulkWrite', 'commitTransaction'], 'two round trips')
  const bulk = seen.find((e) => e.commandName === 'bulkWrite')!.command
  t.same(
    bulk.nsInfo.map((n: { ns: string }) => n.ns),
    [`${db.databaseName}.tasks`, `${db.databaseName}.effects`],
    'the record first, then its effect'
  )
  t.equal(bulk.ordered, true)
  t.equal(await db.collection('tasks').countDocuments({ title: 'one' }), 1)
  t.same(
    (await db.collection('effects').find({ recordId: res.json()._id }).toArray()).map((e) => e.action),
    ['created']
  )
})

t.test('createMany: every record and every effect row in the one command', async (t) => {
  const { uri } = await getTestDb(t)
  const { db, seen } = await watched(t, uri)
  // One row per record (the fixture's log effect keys its rows by write, one for all of createMany).
  const perRecord = async (app: FastifyInstance): Promise<void> => {
    app.svc.services.get('tasks').addDurableEffect('per-record', (r) => [
      { collection: 'effects', document: { _id: `${r.writeId}:${r.recordId ?? ''}`, action: r.action } }
    ])
  }
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [perRecord] })
  const u = makeUser()
  const ctx: any = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' }
  seen.length = 0
  const made = await app.svc.services.get('tasks').createMany(ctx, [{ title: 'a' }, { title: 'b' }])
  t.equal(made.length, 2)
  t.same(writesOf(seen), ['bulkWrite', 'commitTransaction'])
  t.equal(seen.find((e) => e.commandName === 'bulkWrite')!.command.ops.length, 4, 'two records, two effect rows')
  t.equal(await db.collection('effects').countDocuments({ action: 'created' }), 2)
})

t.test('a unique field taken: 409 naming the field, and neither record nor effect row is written', async (t) => {
  const { uri } = await getTestDb(t)
  const { db } = await watched(t, uri)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  // The schema's compositeIndex: one title per tenant (unique).
  const u = makeUser()
  const create = async () =>
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'taken-title' } })
  t.equal((await create()).statusCode, 201)
  const again = await create()
  t.equal(again.statusCode, 409, again.body)
  t.match(again.json(), { error: { code: 'CONFLICT' } })
  t.match(JSON.stringify(again.json()), /title/, 'the field is named')
  t.notMatch(again.body, /taken-title/, 'the value is not')
  t.equal(await db.collection('tasks').countDocuments({ title: 'taken-title' }), 1)
  t.equal(await db.collection('effects').countDocuments({ action: 'created' }), 1, 'no effect row of the refused create')
})

t.test('an effect row its collection refuses (another unique index): 500, nothing written, the next create works', async (t) => {
  const { uri } = await getTestDb(t)
  const { db } = await watched(t, uri)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  // Every create's effect row has `to: null`: a second one collides on this index, not on its `_id`.
  await db.collection('effects').createIndex({ to: 1 }, { unique: true, name: 'one_to' })
  const u = makeUser()
  const first = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'x' } })
  t.equal(first.statusCode, 201)
  const second = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'y' } })
  t.equal(second.statusCode, 500)
  t.equal(await db.collection('tasks').countDocuments({ title: 'y' }), 0, 'the record went with its effect')
  await db.collection('effects').dropIndex('one_to')
  const third = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'y' } })
  t.equal(third.statusCode, 201)
})

t.test('a transient error of the one command (a write conflict): planned again, lands once', async (t) => {
  const { db, client, uri } = await getFailPointTestDb(t)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  const admin = client.db('admin')
  t.teardown(async () => {
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })
  })
  t.ok(uri)
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['bulkWrite'], errorCode: 112, errorLabels: ['TransientTransactionError'] }
  })
  const u = makeUser()
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'retried' } })
  t.equal(res.statusCode, 201, res.body)
  t.equal((await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })).count, 1, 'the fail point fired')
  t.equal(await db.collection('tasks').countDocuments({ title: 'retried' }), 1)
  t.equal(await db.collection('effects').countDocuments({ recordId: res.json()._id }), 1)
})

t.test('a server without the bulkWrite command (MongoDB 7): statement by statement, same outcome', async (t) => {
  const { client, uri } = await getFailPointTestDb(t)
  const admin = client.db('admin')
  t.teardown(async () => {
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })
  })
  // As mongod 7.0 answers a command it does not have.
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: 'alwaysOn',
    data: { failCommands: ['bulkWrite'], errorCode: 59 }
  })
  const { db, seen } = await watched(t, uri)
  const lines: Array<Record<string, unknown>> = []
  const app = await buildCoreApp(t, {
    db,
    schemas: SCHEMAS,
    plugins: [withLog],
    fastify: { logger: { level: 'info', stream: { write: (l: string) => lines.push(JSON.parse(l)) } } }
  })
  t.match(
    lines.filter((l) => l.transactions !== undefined),
    [{ transactions: true, oneCommandWrites: false }],
    'the start-up line says so'
  )
  const u = makeUser()
  seen.length = 0
  const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'old' } })
  t.equal(res.statusCode, 201)
  t.same(writesOf(seen), ['insert', 'insert', 'commitTransaction'], 'the record, its effect row, the commit')
  t.equal(await db.collection('effects').countDocuments({ recordId: res.json()._id }), 1)
})

t.test('an update and a delete: the read, then the guarded statement with its effect row in one bulkWrite', async (t) => {
  const { uri } = await getTestDb(t)
  const { db, seen } = await watched(t, uri)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  const u = makeUser()
  const made = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'u' } })
  const id = made.json()._id
  seen.length = 0
  const put = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { status: 'done' } })
  t.equal(put.statusCode, 200)
  t.same(writesOf(seen), ['bulkWrite', 'commitTransaction'])
  const ops = seen.find((e) => e.commandName === 'bulkWrite')!.command.ops
  t.match(ops[0], { update: 0, filter: { _id: { toHexString: Function } }, updateMods: { $set: { status: 'done' } } })
  t.equal(ops.length, 3, 'the update, its updated and transitioned rows')
  t.same(
    (await db.collection('effects').find({ recordId: id }).sort({ action: 1 }).toArray()).map((e) => [e.action, e.to]),
    [
      ['created', null],
      ['transitioned', 'done'],
      ['updated', null]
    ]
  )
  seen.length = 0
  const del = await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: u.headers })
  t.equal(del.statusCode, 200)
  t.same(writesOf(seen), ['bulkWrite', 'commitTransaction'])
  t.match(seen.find((e) => e.commandName === 'bulkWrite')!.command.ops[0], { delete: 0 })
  t.equal(await db.collection('tasks').countDocuments({}), 0)
  t.equal(await db.collection('effects').countDocuments({ recordId: id, action: 'deleted' }), 1)
})

t.test('a stale guard (the record moved since it was read): nothing lands, the write is planned again', async (t) => {
  const { uri } = await getTestDb(t)
  const { db, seen } = await watched(t, uri)
  const app = await buildCoreApp(t, { db, schemas: SCHEMAS, plugins: [withLog] })
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 's' } })
  ).json()._id
  // Another writer changes the record between this PUT's read and its write.
  let moved = false
  seen.length = 0
  const tasks = db.collection('tasks')
  app.svc.services.get('tasks').addDurableEffect('mover', async () => {
    if (!moved) {
      moved = true
      await tasks.updateOne({ title: 's' }, { $set: { n: 99, updatedAt: new Date(Date.now() + 60_000) } })
    }
    return []
  })
  const put = await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { title: 's2' } })
  t.equal(put.statusCode, 200)
  t.same(writesOf(seen), ['bulkWrite', 'abortTransaction', 'bulkWrite', 'commitTransaction'], 'missed, aborted, planned again')
  t.match(put.json(), { title: 's2', n: 99 }, 'the second plan saw the other write')
  t.equal(await db.collection('effects').countDocuments({ recordId: id, action: 'updated' }), 1, 'one row: the missed attempt left none')
})

t.test('the event sequencer stamps a batch in one bulkWrite with its counter, or statement by statement without the command', async (t) => {
  for (const withCommand of [true, false]) {
    const { client, uri } = await getFailPointTestDb(t)
    const admin = client.db('admin')
    if (!withCommand) {
      await admin.command({
        configureFailPoint: 'failCommand',
        mode: 'alwaysOn',
        data: { failCommands: ['bulkWrite'], errorCode: 59 }
      })
    }
    const { db, seen } = await watched(t, uri)
    const app = await buildLogApp(t, { db })
    const u = makeUser()
    for (const title of ['e1', 'e2', 'e3']) {
      const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title } })
      t.equal(res.statusCode, 201)
    }
    await stamped(app, 3)
    const events = await db.collection('svc_events').find({}).sort({ seq: 1 }).toArray()
    t.same(
      events.map((e) => [e.seq, e.record.title, 'pending' in e]),
      [
        [1, 'e1', false],
        [2, 'e2', false],
        [3, 'e3', false]
      ],
      'numbered in write order, pending gone'
    )
    const stamps = seen.filter(
      (e) =>
        (e.commandName === 'bulkWrite' && JSON.stringify(e.command.nsInfo).includes('svc_leases')) ||
        (e.commandName === 'update' && e.command.update === 'svc_events')
    )
    t.ok(stamps.length > 0, 'the sequencer stamped')
    t.ok(
      stamps.every((e) => e.commandName === (withCommand ? 'bulkWrite' : 'update')),
      withCommand ? 'stamps and counter in one command' : 'an update command without bulkWrite'
    )
    if (!withCommand) await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })
  }
})
