import t from 'tap'
import { ValidationError } from '../src/index.js'
import { EVENTS_COLLECTION } from '../src/kit.js'
import { DURABLE_MODES, makeUser } from './helper.js'
import { buildLogApp, stamped } from './fixtures/event-log-app.js'

// What the log holds: one event per record event, iff its write committed, stamped 1..N.

t.test('core alone keeps no log: no collection, no loop, follow refused', async (t) => {
  const app = await buildLogApp(t, { register: null })
  const u = makeUser()
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } }))
      .statusCode,
    201
  )
  t.equal(app.svc.eventLog.enabled, false)
  t.equal(app.svc.eventLog.mode, null, 'nothing runs')
  t.same(await app.svc.db.listCollections({ name: EVENTS_COLLECTION }).toArray(), [], 'no svc_events collection')
  await t.rejects(
    app.svc.eventLog.follow(null, () => {}),
    /enabled at registration/
  )
  t.throws(
    () => {
      app.svc.eventLog.enable()
    },
    /before the app is ready/,
    'enabling after ready would miss writes'
  )
})

for (const mode of DURABLE_MODES) {
  t.test(`${mode.name}: every record event is one document with its own id, stamped 1..N in order`, async (t) => {
    const app = await buildLogApp(t, { transactions: mode.transactions })
    t.equal(
      app.svc.eventLog.mode,
      'change-stream',
      'devdb as a replica set serves change streams: the log follows by stream'
    )
    const u = makeUser()
    const other = makeUser()
    const tasks = app.svc.services.get('tasks')
    const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'graphql' as const }
    const a = (
      await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } })
    ).json()
    t.equal(
      (
        await app.inject({
          method: 'PUT',
          url: `/api/v1/tasks/${a._id as string}`,
          headers: u.headers,
          payload: { n: 2, status: 'done' }
        })
      ).statusCode,
      200
    )
    const many = await tasks.createMany(ctx, [{ title: 'b' }, { title: 'c' }])
    t.same(
      (
        await app.inject({
          method: 'PUT',
          url: '/api/v1/tasks',
          headers: u.headers,
          payload: { filter: {}, record: { n: 9 } }
        })
      ).json(),
      { numAffected: 3 }
    )
    // Refused writes leave nothing: a duplicate title (409), another tenant's id (404), a bad body (400).
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } }))
        .statusCode,
      409
    )
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${a._id as string}`, headers: other.headers }))
        .statusCode,
      404
    )
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 3 } }))
        .statusCode,
      400
    )
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${a._id as string}`, headers: u.headers })).statusCode,
      200
    )
    t.same(await tasks.deleteMany(ctx, { title: { $in: ['b', 'c'] } }), { numAffected: 2 })
    t.same(
      await tasks.deleteMany(ctx, { title: 'none' }),
      { numAffected: 0 },
      'a bulk write of nothing commits nothing'
    )

    const docs = await stamped(app, 8)
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(await app.svc.db.collection(EVENTS_COLLECTION).countDocuments(), 8, "exactly the committed writes' events")
    t.same(
      docs.map((d) => d.seq),
      [1, 2, 3, 4, 5, 6, 7, 8],
      'gap-free from 1'
    )
    t.same(
      docs.map((d) => d.type),
      [
        'tasks.created',
        'tasks.updated',
        'tasks.transitioned',
        'tasks.created',
        'tasks.created',
        'tasks.updated',
        'tasks.deleted',
        'tasks.deleted'
      ],
      'in commit order'
    )
    t.equal(new Set(docs.map((d) => d._id)).size, 8, 'unique ids: the two records of one createMany included')
    t.ok(
      docs.every((d) => /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(d._id)),
      'UUID-shaped'
    )
    t.ok(
      docs.every(
        (d) =>
          d.pending === undefined &&
          d.userId === u.userId &&
          d.version === 'v1' &&
          d.path === 'tasks' &&
          d.at instanceof Date
      )
    )
    t.same(
      docs
        .slice(3, 5)
        .map((d) => d.recordId)
        .sort(),
      many.map((r) => r._id).sort(),
      'one created event per record of the createMany'
    )
    t.match(docs[0], { recordId: a._id, record: { title: 'a', status: 'open', userId: u.userId } })
    t.match(docs[2], { transition: { field: 'status', from: 'open', to: 'done' }, record: { status: 'done', n: 2 } })
    t.match(docs[5], { filter: {}, numAffected: 3 })
    t.equal(docs[5].record, undefined, 'a bulk event carries filter and count, no record')
    t.match(docs[6], { recordId: a._id, record: { _id: a._id } })
    t.match(docs[7], { numAffected: 2, filter: { title: { $in: ['b', 'c'] } } })
  })
}

t.test('read pages by seq; head; cursors are opaque, signed and checked', async (t) => {
  const app = await buildLogApp(t)
  const u = makeUser()
  for (const title of ['a', 'b', 'c']) {
    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title } })
  }
  await stamped(app, 3)
  const log = app.svc.eventLog
  t.equal(await log.head(), 3)
  const first = await log.read(0, 2)
  t.same(
    first.map((e) => e.seq),
    [1, 2]
  )
  t.same(
    (await log.read(2)).map((e) => e.record?.title),
    ['c']
  )
  t.same(await log.read(3), [], 'nothing after the head')
  t.match(first[0], { id: String, type: 'tasks.created', userId: u.userId, at: Date })
  t.notOk(
    '_id' in first[0] || 'pending' in first[0] || 'origin' in first[0],
    'the consumer view has `id`, not storage fields (nor the writing process)'
  )
  const stored = await app.svc.db.collection(EVENTS_COLLECTION).findOne({ _id: first[0].id as never })
  t.type(stored?.origin, 'string', 'the stored event names the process that wrote it')
  await t.rejects(log.read(0, 0), TypeError)

  const cursor = log.encodeCursor(2)
  t.match(cursor, /^[A-Za-z0-9_-]+$/, 'base64url')
  t.equal(log.decodeCursor(cursor), 2)
  t.equal(log.decodeCursor(log.encodeCursor(0)), 0)
  t.not(log.encodeCursor(2), log.encodeCursor(3))
  const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6)
  for (const bad of [flipped, cursor + 'A', cursor.slice(1), '', 'not a cursor!', '2', 2, null, 'A'.repeat(200)]) {
    t.throws(() => log.decodeCursor(bad), ValidationError, `refused: ${JSON.stringify(bad)}`)
  }
  t.throws(() => log.encodeCursor(-1), TypeError)
  t.throws(() => log.encodeCursor(1.5), TypeError)
  const replica = await buildLogApp(t, { register: null })
  t.equal(replica.svc.eventLog.decodeCursor(cursor), 2, "replicas sharing the JWT secret accept each other's cursors")
})

t.test('consumer names and options are checked when registering', async (t) => {
  await t.rejects(
    buildLogApp(t, {
      register: (app) => {
        app.svc.eventLog.consume('bad name!', async () => {})
      }
    }),
    /name of letters/
  )
  await t.rejects(
    buildLogApp(t, {
      register: (app) => {
        app.svc.eventLog.consume('x', async () => {})
        app.svc.eventLog.consume('x', async () => {})
      }
    }),
    /already registered/
  )
  await t.rejects(
    buildLogApp(t, {
      register: (app) => {
        app.svc.eventLog.enable({ retentionMs: -1 })
      }
    }),
    /retentionMs/
  )
  await t.rejects(buildLogApp(t, { eventLog: { pollMs: 0 } }), /eventLog.pollMs/)
  await t.rejects(buildLogApp(t, { eventLog: { changeStreams: true as never } }), /changeStreams/)
  const app = await buildLogApp(t, {
    register: (app) => {
      app.svc.eventLog.enable({ retentionMs: 5000 })
      app.svc.eventLog.enable({ retentionMs: 2000 })
    }
  })
  t.equal(app.svc.eventLog.retentionMs, 5000, 'the longest retention asked for')
})
