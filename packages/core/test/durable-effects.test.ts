import t from 'tap'
import { ObjectId } from 'mongodb'
import type { FastifyInstance } from 'fastify'
import { INTENTS_COLLECTION } from '../src/kit.js'
import { DURABLE_MODES, buildCoreApp, makeUser } from './helper.js'
import { FLOW_STATES, SCHEMAS, withLog } from './fixtures/durable-schemas.js'

// The guarantees of durable effects, on both commit paths: write-ahead intents and transactions.

type Plugin = (app: FastifyInstance) => Promise<void>

for (const mode of DURABLE_MODES) {
  const build = async (t: Parameters<typeof buildCoreApp>[0], plugin: Plugin = withLog): Promise<FastifyInstance> =>
    await buildCoreApp(t, {
      schemas: SCHEMAS,
      options: { intentReconcileMs: 0, transactions: mode.transactions },
      plugins: [plugin]
    })
  const pending = async (app: FastifyInstance): Promise<number> =>
    await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' })

  t.test(`${mode.name}: every write leaves its effect documents; one writeId per write`, async (t) => {
    const app = await build(t)
    t.equal(app.svc.transactions, mode.name === 'transactions', `commits through ${mode.name}`)
    const u = makeUser()
    const effects = app.svc.db.collection('effects')
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'a' }
    })
    t.equal(created.statusCode, 201)
    const id = created.json()._id
    t.match(await effects.find({ recordId: id }).toArray(), [
      { action: 'created', after: { title: 'a', status: 'open' } }
    ])

    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/tasks/${id}`,
      headers: u.headers,
      payload: { n: 2, status: 'done' }
    })
    t.equal(put.statusCode, 200)
    const rows = await effects.find({ recordId: id, action: { $in: ['updated', 'transitioned'] } }).toArray()
    t.equal(rows.length, 2, 'updated + transitioned')
    t.equal(rows[0].writeId, rows[1].writeId, 'one write, one writeId')
    t.equal(rows.find((r) => r.action === 'transitioned')?.to, 'done')
    t.equal(rows[0].after.updatedAt, put.json().updatedAt, 'the image the write produced')

    await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'b' } })
    const bulk = await app.inject({
      method: 'PUT',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { filter: {}, record: { n: 9 } }
    })
    t.same(bulk.json(), { numAffected: 2 })
    t.equal(await effects.countDocuments({ action: 'updated', numAffected: 2 }), 1, 'one effect for the bulk write')

    const del = await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${id}`, headers: u.headers })
    t.equal(del.statusCode, 200)
    t.equal(await effects.countDocuments({ recordId: id, action: 'deleted', after: null }), 1)
    t.equal(await pending(app), 0, 'no intent left pending')
    const intents = await app.svc.db.collection(INTENTS_COLLECTION).countDocuments()
    if (mode.name === 'intents') t.ok(intents >= 4, 'completed intents stay as markers')
    else t.equal(intents, 0, 'the transaction path writes no intent')

    const other = makeUser()
    const foreign = await app.inject({
      method: 'PUT',
      url: `/api/v1/tasks/${created.json()._id}`,
      headers: other.headers,
      payload: { n: 1 }
    })
    t.equal(foreign.statusCode, 404)
    const before = await effects.countDocuments()
    t.equal(
      (
        await app.inject({
          method: 'PUT',
          url: '/api/v1/tasks',
          headers: other.headers,
          payload: { filter: {}, record: { n: 1 } }
        })
      ).json().numAffected,
      0
    )
    t.equal(
      await effects.countDocuments({ numAffected: { $ne: 0 } }),
      before,
      "another tenant's writes touch none of these records"
    )
  })

  t.test(`${mode.name}: a throwing build refuses the write before anything is written`, async (t) => {
    const app = await build(t)
    const u = makeUser()
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'boom' }
    })
    t.equal(res.statusCode, 500)
    t.equal(res.json().error.code, 'INTERNAL')
    t.equal(await app.svc.db.collection('tasks').countDocuments(), 0, 'no record')
    t.equal(await app.svc.db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'no intent')
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'ok' } })
    ).json()._id
    t.equal(
      (await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { title: 'boom' } }))
        .statusCode,
      500
    )
    t.equal((await app.svc.db.collection('tasks').findOne({}))?.title, 'ok', 'the update did not land')
    t.equal(await pending(app), 0)
  })

  t.test(`${mode.name}: a malformed effect document is refused like a throw`, async (t) => {
    const app = await build(t, async (app) => {
      app.svc.services
        .get('tasks')
        .addDurableEffect('bad', () => [{ collection: 'x', document: { no: 'id' } }] as never)
    })
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: makeUser().headers,
      payload: { title: 'a' }
    })
    t.equal(res.statusCode, 500)
    t.equal(await app.svc.db.collection('tasks').countDocuments(), 0)
    t.throws(() => app.svc.services.get('tasks').addDurableEffect('bad', () => []), /already registered/)
  })

  t.test(`${mode.name}: a write the database refuses leaves no effect and no pending intent`, async (t) => {
    const app = await build(t)
    const u = makeUser()
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'same' } }))
        .statusCode,
      201
    )
    const dup = await app.inject({
      method: 'POST',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { title: 'same' }
    })
    t.equal(dup.statusCode, 409, 'compositeIndex refusal')
    t.same(dup.json().error.details, { keys: ['title'] }, 'the refusal names the field')
    // Concurrent creates of one title: each sees no other (the transaction path: they meet at the commit).
    const racers = await Promise.all(
      Array.from(
        { length: 5 },
        async () =>
          await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'raced' } })
      )
    )
    t.same(racers.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409], 'one create of a unique title lands')
    t.equal(await app.svc.db.collection('tasks').countDocuments({ title: 'raced' }), 1)
    t.equal(await app.svc.db.collection('effects').countDocuments(), 2, 'only the landed creates have their effect')
    t.equal(await pending(app), 0, "the refused writes' intents are dropped at once")
  })

  t.test(`${mode.name}: concurrent writers of one record: each write lands once with its effect`, async (t) => {
    const app = await build(t)
    const u = makeUser()
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'race' } })
    ).json()._id
    const puts = await Promise.all(
      Array.from(
        { length: 10 },
        async (_, i) =>
          await app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}`, headers: u.headers, payload: { n: i } })
      )
    )
    t.ok(
      puts.every((r) => r.statusCode === 200),
      'plain updates all land (re-planned after a lost race)'
    )
    const rows = await app.svc.db.collection('effects').find({ recordId: id, action: 'updated' }).toArray()
    t.equal(rows.length, 10, 'one effect per update')
    const chain = rows.map((r) => r.after.updatedAt).sort()
    t.equal(new Set(chain).size, 10, 'each update moved updatedAt to a new value')
    const stored = await app.svc.db.collection('tasks').findOne({})
    t.equal(stored?.updatedAt.toISOString(), chain[9], "the record is the last write's image")
    t.equal(stored?.n, rows.find((r) => r.after.updatedAt === chain[9])?.after.n)

    const flow = (await app.inject({ method: 'POST', url: '/api/v1/flows', headers: u.headers, payload: {} })).json()
      ._id
    const moves = await Promise.all(
      FLOW_STATES.map(
        async (state) =>
          await app.inject({ method: 'PUT', url: `/api/v1/flows/${flow}`, headers: u.headers, payload: { state } })
      )
    )
    const ok = moves.filter((r) => r.statusCode === 200)
    t.equal(ok.length, 1, '20 parallel transitions from one state: exactly one 200')
    t.same(
      new Set(moves.filter((r) => r.statusCode !== 200).map((r) => r.json().error.code)),
      new Set(['CONFLICT']),
      'the others 409'
    )
    const transitioned = await app.svc.db
      .collection('effects')
      .find({ recordId: flow, action: 'transitioned' })
      .toArray()
    t.equal(transitioned.length, 1, 'exactly one transition effect')
    t.equal(transitioned[0].to, ok[0].json().state, "the winner's")
    t.equal(await pending(app), 0)
  })

  t.test(
    `${mode.name}: bulk PUTs racing single-record PUTs: each record's effects form one unbroken chain`,
    async (t) => {
      const app = await build(t, async (app) => {
        const tasks = app.svc.services.get('tasks')
        tasks.wantBulkRecords()
        // One row per record a result changes: the state it left and the state it made.
        tasks.addDurableEffect('steps', (r) =>
          (r.records ?? (r.action === 'updated' ? [{ before: r.before!, after: r.after! }] : [])).map((x) => ({
            collection: 'steps',
            document: {
              _id: `${r.writeId}:${x.after!._id}`,
              recordId: x.after!._id,
              from: x.before.updatedAt,
              to: x.after!.updatedAt
            }
          }))
        )
      })
      const u = makeUser()
      const ids: string[] = []
      for (let i = 0; i < 4; i++) {
        ids.push(
          (
            await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: `r${i}` } })
          ).json()._id
        )
      }
      const writes = Array.from(
        { length: 16 },
        async (_, i) =>
          await app.inject(
            i % 2 === 0
              ? { method: 'PUT', url: '/api/v1/tasks', headers: u.headers, payload: { filter: {}, record: { n: i } } }
              : { method: 'PUT', url: `/api/v1/tasks/${ids[i % 4]}`, headers: u.headers, payload: { n: i } }
          )
      )
      const answers = await Promise.all(writes)
      // Contention past CONTENTION_MS is a 409 CONFLICT by contract (retry): on a loaded CI machine
      // the write-ahead path hit it. What must hold whatever the answers is the chain below.
      t.ok(
        answers.every((r) => r.statusCode === 200 || (r.statusCode === 409 && r.json().error.code === 'CONFLICT')),
        `each answered 200, or 409 CONFLICT past the contention window (${answers.map((r) => r.statusCode).join(' ')})`
      )
      t.ok(
        answers.some((r) => r.statusCode === 200),
        'writes got through'
      )
      // Every write answered 200 left one step on each record it changed, a refused one none.
      const bulkOk = answers.filter((r, i) => i % 2 === 0 && r.statusCode === 200).length
      for (const [j, id] of ids.entries()) {
        const steps = await app.svc.db.collection('steps').find({ recordId: id }).toArray()
        const singleOk = answers.filter((r, i) => i % 2 === 1 && i % 4 === j && r.statusCode === 200).length
        t.equal(steps.length, bulkOk + singleOk, `${id}: one step per accepted write that changed it`)
        const from = new Set(steps.map((s) => s.from))
        t.equal(from.size, steps.length, `${id}: no two writes left one state`)
        const current = (await app.svc.db
          .collection('tasks')
          .findOne({ _id: new ObjectId(id) }))!.updatedAt.toISOString()
        let at = steps.find((s) => !steps.some((x) => x.to === s.from))?.from
        for (let i = 0; i < steps.length; i++) at = steps.find((s) => s.from === at)?.to ?? at
        t.equal(at, current, `${id}: the chain of ${steps.length} steps ends at the record`)
      }
    }
  )

  t.test(`${mode.name}: an idempotent create leaves one record and one effect`, async (t) => {
    const app = await build(t)
    const u = makeUser()
    const headers = { ...u.headers, 'idempotency-key': 'k-1' }
    const answers = await Promise.all(
      Array.from(
        { length: 4 },
        async () => await app.inject({ method: 'POST', url: '/api/v1/tasks', headers, payload: { title: 'once' } })
      )
    )
    t.same(
      answers.map((r) => r.statusCode),
      [201, 201, 201, 201]
    )
    t.equal(new Set(answers.map((r) => r.json()._id)).size, 1, 'one record answered to all')
    t.equal(await app.svc.db.collection('tasks').countDocuments(), 1)
    t.equal(await app.svc.db.collection('effects').countDocuments({ action: 'created' }), 1)
  })

  t.test(
    `${mode.name}: a document already there (same _id) counts as written; an effect must answer an array`,
    async (t) => {
      const app = await build(t, async (app) => {
        const tasks = app.svc.services.get('tasks')
        tasks.addDurableEffect('fixed', (r) =>
          r.action === 'created' ? [{ collection: 'fixed', document: { _id: 'one', v: 1 } }] : []
        )
        tasks.addDurableEffect('async', async (r) => {
          if (r.after?.title === 'not-array') return { collection: 'x' } as never
          return [{ collection: 'async', document: { _id: `${r.writeId}:${r.action}` } }]
        })
      })
      const u = makeUser()
      t.equal(
        (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'a' } }))
          .statusCode,
        201
      )
      t.equal(
        (await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: u.headers, payload: { title: 'b' } }))
          .statusCode,
        201,
        'the replayed _id is not an error'
      )
      t.equal(await app.svc.db.collection('tasks').countDocuments(), 2)
      t.equal(await app.svc.db.collection('fixed').countDocuments(), 1)
      t.equal(
        await app.svc.db.collection('async').countDocuments(),
        2,
        'async builders are awaited, and the other documents of the replaying write are in'
      )
      t.equal(await pending(app), 0)
      const bad = await app.inject({
        method: 'POST',
        url: '/api/v1/tasks',
        headers: u.headers,
        payload: { title: 'not-array' }
      })
      t.equal(bad.statusCode, 500)
      t.equal(await app.svc.db.collection('tasks').countDocuments({ title: 'not-array' }), 0)
    }
  )

  t.test(`${mode.name}: bulk PUT upsert and bulk PUT on nothing go through the same path`, async (t) => {
    const app = await build(t)
    const u = makeUser()
    const up = await app.inject({
      method: 'PUT',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { filter: { title: 'seeded' }, record: { n: 1 } }
    })
    t.same(up.json(), { numAffected: 1 })
    const rec = await app.svc.db.collection('tasks').findOne({ title: 'seeded' })
    t.match(rec, { n: 1, status: 'open', userId: u.userId })
    t.ok(rec?.createdAt instanceof Date && rec.updatedAt instanceof Date)
    const effects = await app.svc.db.collection('effects').find({}).toArray()
    t.same(effects.map((e) => e.action).sort(), ['created', 'updated'], "the upsert's create and the bulk result")
    t.equal(effects[0].writeId, effects[1].writeId)
    const none = await app.inject({
      method: 'PUT',
      url: '/api/v1/tasks',
      headers: u.headers,
      payload: { filter: { n: { $gt: 99 } }, record: { n: 5 } }
    })
    t.same(none.json(), { numAffected: 0 }, 'nothing matches and no valid record can be seeded: nothing written')
    t.equal(await app.svc.db.collection('effects').countDocuments(), 2, 'and leaves no effect')
    t.equal(await pending(app), 0)
  })
}
