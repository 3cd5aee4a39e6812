import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, fails, makeUser, ok } from './helper.js'
import { hookedSchemas, type HookLog } from './fixtures/hooked.js'

const log: HookLog = { calls: [] }
const { app, db } = await buildApp(t, { schemas: hookedSchemas(log) })
const events: string[] = []
for (const type of ['created', 'updated', 'deleted', 'transitioned']) {
  for (const path of ['tasks', 'logs']) {
    app.svc.events.on(`${path}.${type}`, (e: any) => {
      events.push(`${e.type}${e.numAffected !== undefined ? `:${String(e.numAffected)}` : ''}`)
    })
  }
}
const alice = makeUser()
const bob = makeUser()
const admin = makeUser({ roles: ['user', 'admin'] })
const reset = (): void => {
  log.calls.length = 0
  events.length = 0
}

const create = async (title: string, user = alice): Promise<string> =>
  (
    await ok(app, user.headers, 'mutation ($r: TasksInput!) { tasksCreateOne(record: $r) { recordId } }', {
      r: { title }
    })
  ).tasksCreateOne.recordId

t.test(
  'CreateOne fires beforeCreate (req undefined) and afterCreate, emits created, answers { recordId, record }',
  async (t) => {
    reset()
    const data = await ok(
      app,
      alice.headers,
      'mutation { tasksCreateOne(record: { title: "one" }) { recordId record { _id title note status availableTransitions userId } } }'
    )
    const { recordId, record } = data.tasksCreateOne
    t.equal(record._id, recordId)
    t.same(record, {
      _id: recordId,
      title: 'one',
      note: 'set by beforeCreate',
      status: 'todo',
      availableTransitions: ['doing'],
      userId: alice.userId
    })
    t.same(log.calls, ['beforeCreate req=undefined', 'afterCreate'], 'a throwing afterCreate is swallowed')
    t.same(events, ['tasks.created'])
    const veto = await fails(app, alice.headers, 'mutation { tasksCreateOne(record: { title: "veto" }) { recordId } }')
    t.equal(veto.code, 'VALIDATION')
    t.equal(veto.message, 'vetoed by beforeCreate')
    t.equal(await db.collection('tasks').countDocuments({ title: 'veto' }), 0, 'nothing written')
  }
)

t.test('CreateOne refusals: missing required field, protected field, initial state, api client', async (t) => {
  const missing = await fails(app, alice.headers, 'mutation { tasksCreateOne(record: { note: "x" }) { recordId } }')
  t.equal(missing.code, 'VALIDATION')
  t.equal(missing.details.field, 'title')
  const owner = await fails(
    app,
    alice.headers,
    'mutation { tasksCreateOne(record: { title: "x", owner: "me" }) { recordId } }'
  )
  t.equal(owner.code, 'FORBIDDEN')
  t.equal(owner.details.field, 'owner')
  await ok(app, admin.headers, 'mutation { tasksCreateOne(record: { title: "x", owner: "me" }) { recordId } }')
  const state = await fails(
    app,
    alice.headers,
    'mutation { tasksCreateOne(record: { title: "x", status: "done" }) { recordId } }'
  )
  t.equal(state.code, 'INVALID_TRANSITION')
  const min = await fails(
    app,
    alice.headers,
    'mutation { tasksCreateOne(record: { title: "x", priority: -1 }) { recordId } }'
  )
  t.equal(min.code, 'VALIDATION')
  const anon = await fails(app, {}, 'mutation { tasksCreateOne(record: { title: "x" }) { recordId } }')
  t.equal(anon.code, 'UNAUTHENTICATED')
})

t.test('CreateOne with idempotencyKey answers the first record on a retry', async (t) => {
  const q = 'mutation ($k: String) { tasksCreateOne(record: { title: "idem" }, idempotencyKey: $k) { recordId } }'
  const first = await ok(app, alice.headers, q, { k: 'key-1' })
  const again = await ok(app, alice.headers, q, { k: 'key-1' })
  t.equal(again.tasksCreateOne.recordId, first.tasksCreateOne.recordId)
  const other = await fails(
    app,
    alice.headers,
    'mutation { tasksCreateOne(record: { title: "other" }, idempotencyKey: "key-1") { recordId } }'
  )
  t.equal(other.code, 'CONFLICT')
})

t.test('CreateMany fires no hooks, emits one created per record, writes nothing when one record is bad', async (t) => {
  reset()
  const data = await ok(
    app,
    alice.headers,
    'mutation { tasksCreateMany(records: [{ title: "m1" }, { title: "m2" }]) { recordIds records { title note status } } }'
  )
  t.equal(data.tasksCreateMany.recordIds.length, 2)
  t.same(data.tasksCreateMany.records, [
    { title: 'm1', note: null, status: 'todo' },
    { title: 'm2', note: null, status: 'todo' }
  ])
  t.same(log.calls, [], 'no hooks')
  t.same(events, ['tasks.created', 'tasks.created'])
  const bad = await fails(
    app,
    alice.headers,
    'mutation { tasksCreateMany(records: [{ title: "ok" }, { note: "no title" }]) { recordIds } }'
  )
  t.equal(bad.code, 'VALIDATION')
  t.equal(bad.details.field, 'records.1.title')
  t.equal(await db.collection('tasks').countDocuments({ title: 'ok' }), 0, 'no partial write')
  const empty = await fails(app, alice.headers, 'mutation { tasksCreateMany(records: []) { recordIds } }')
  t.equal(empty.code, 'VALIDATION')
})

t.test('UpdateById fires beforeUpdate and afterUpdate; a before-hook refusal keeps the record', async (t) => {
  const id = await create('upd')
  reset()
  const data = await ok(
    app,
    alice.headers,
    `mutation { tasksUpdateById(_id: "${id}", record: { priority: 5, note: null }) { recordId record { priority note } } }`
  )
  t.same(data.tasksUpdateById, { recordId: id, record: { priority: 5, note: null } })
  t.same(log.calls, ['beforeUpdate', 'afterUpdate'])
  t.same(events, ['tasks.updated'])
  const refused = await fails(
    app,
    alice.headers,
    `mutation { tasksUpdateById(_id: "${id}", record: { title: "forbidden" }) { recordId } }`
  )
  t.equal(refused.code, 'FORBIDDEN')
  t.equal(await db.collection('tasks').findOne({ title: 'forbidden' }), null)
  const foreign = await fails(
    app,
    bob.headers,
    `mutation { tasksUpdateById(_id: "${id}", record: { priority: 1 }) { recordId } }`
  )
  t.equal(foreign.code, 'NOT_FOUND', "another tenant's record")
  const owner = await fails(
    app,
    alice.headers,
    `mutation { tasksUpdateById(_id: "${id}", record: { owner: "x" }) { recordId } }`
  )
  t.equal(owner.code, 'FORBIDDEN')
})

t.test('UpdateById moving a state field: hooks, then the transition table', async (t) => {
  const id = await create('sm')
  reset()
  const bad = await fails(
    app,
    alice.headers,
    `mutation { tasksUpdateById(_id: "${id}", record: { status: "done" }) { recordId } }`
  )
  t.equal(bad.code, 'INVALID_TRANSITION')
  t.same(bad.details, { field: 'status', current: 'todo', attempted: 'done', allowed: ['doing'] })
  t.same(log.calls, ['beforeUpdate'], 'state validation runs after beforeUpdate')
  reset()
  await ok(app, alice.headers, `mutation { tasksUpdateById(_id: "${id}", record: { status: "doing" }) { recordId } }`)
  t.same(events, ['tasks.updated', 'tasks.transitioned'])
})

t.test('Transition<Field> runs onEnter only; refusals carry current, attempted, allowed', async (t) => {
  const id = await create('tr')
  reset()
  const bad = await fails(app, alice.headers, `mutation { tasksTransitionStatus(_id: "${id}", to: done) { recordId } }`)
  t.equal(bad.code, 'INVALID_TRANSITION')
  t.same(bad.details, { field: 'status', current: 'todo', attempted: 'done', allowed: ['doing'] })
  await ok(app, alice.headers, `mutation { tasksTransitionStatus(_id: "${id}", to: doing) { recordId } }`)
  const done = await ok(
    app,
    alice.headers,
    `mutation { tasksTransitionStatus(_id: "${id}", to: done) { record { status availableTransitions } } }`
  )
  t.same(done.tasksTransitionStatus.record, { status: 'done', availableTransitions: [] })
  t.same(log.calls, ['onEnter:done'], 'no beforeUpdate/afterUpdate')
  t.same(events, ['tasks.updated', 'tasks.transitioned', 'tasks.updated', 'tasks.transitioned'])
  const unknown = await fails(
    app,
    alice.headers,
    'mutation { tasksTransitionStatus(_id: "x", to: doing) { recordId } }'
  )
  t.equal(unknown.code, 'NOT_FOUND')
  const foreign = await fails(
    app,
    bob.headers,
    `mutation { tasksTransitionStatus(_id: "${id}", to: todo) { recordId } }`
  )
  t.equal(foreign.code, 'NOT_FOUND')
  const notState = await fails(
    app,
    alice.headers,
    `mutation { tasksTransitionStatus(_id: "${id}", to: nope) { recordId } }`
  )
  t.equal(notState.code, 'VALIDATION', 'not a state of the machine')
})

t.test('UpdateOne and UpdateMany fire no hooks; UpdateMany never inserts', async (t) => {
  await create('bulk-a')
  await create('bulk-b')
  await create('bulk-a', bob)
  reset()
  const first = await ok(
    app,
    alice.headers,
    'mutation { tasksUpdateOne(filter: { _operators: { title: { regex: "^bulk-" } } }, sort: [title_DESC], record: { priority: 7 }) { record { title priority } } }'
  )
  t.same(first.tasksUpdateOne.record, { title: 'bulk-b', priority: 7 })
  const none = await fails(
    app,
    alice.headers,
    'mutation { tasksUpdateOne(filter: { title: "nothing" }, record: { priority: 7 }) { recordId } }'
  )
  t.equal(none.code, 'NOT_FOUND')
  const many = await ok(
    app,
    alice.headers,
    'mutation { tasksUpdateMany(filter: { title: "bulk-a" }, record: { priority: 9 }) { numAffected } }'
  )
  t.same(many.tasksUpdateMany, { numAffected: 1 }, "bob's bulk-a is untouched")
  t.equal((await db.collection('tasks').findOne({ title: 'bulk-a', userId: bob.userId }))?.priority, 1)
  const zero = await ok(
    app,
    alice.headers,
    'mutation { tasksUpdateMany(filter: { title: "absent" }, record: { priority: 9 }) { numAffected } }'
  )
  t.same(zero.tasksUpdateMany, { numAffected: 0 })
  t.equal(await db.collection('tasks').countDocuments({ title: 'absent' }), 0, 'no upsert')
  t.same(log.calls, [])
  t.same(events, ['tasks.updated', 'tasks.updated:1', 'tasks.updated:0'])
  const state = await fails(
    app,
    alice.headers,
    'mutation { tasksUpdateMany(filter: { title: "bulk-a" }, record: { status: "doing" }) { numAffected } }'
  )
  t.equal(state.code, 'VALIDATION', 'state fields move one record at a time')
})

t.test(
  'RemoveById fires beforeDelete/afterDelete and tombstones; Restore brings it back; RemoveMany fires no hooks',
  async (t) => {
    const id = await create('del')
    const kept = await create('keep')
    reset()
    const removed = await ok(
      app,
      alice.headers,
      `mutation { tasksRemoveById(_id: "${id}") { recordId record { deletedAt } } }`
    )
    t.ok(removed.tasksRemoveById.record.deletedAt, 'the tombstone')
    t.same(log.calls, ['beforeDelete', 'afterDelete'])
    t.same(events, ['tasks.deleted'])
    t.equal((await fails(app, alice.headers, `{ tasksById(_id: "${id}") { _id } }`)).code, 'NOT_FOUND')
    const seen = await ok(app, alice.headers, `{ tasksById(_id: "${id}", includeDeleted: true) { _id } }`)
    t.equal(seen.tasksById._id, id)
    const vetoed = await fails(app, alice.headers, `mutation { tasksRemoveById(_id: "${kept}") { recordId } }`)
    t.equal(vetoed.code, 'CONFLICT')
    t.equal(
      (await fails(app, bob.headers, `mutation { tasksRestore(_id: "${id}") { recordId } }`)).code,
      'NOT_FOUND',
      'another tenant cannot restore'
    )
    reset()
    const restored = await ok(
      app,
      alice.headers,
      `mutation { tasksRestore(_id: "${id}") { recordId record { title deletedAt } } }`
    )
    t.same(restored.tasksRestore, { recordId: id, record: { title: 'del', deletedAt: null } })
    t.same(log.calls, [], 'restore fires no afterUpdate')
    t.same(events, ['tasks.updated'])
    t.equal(
      (await fails(app, alice.headers, `mutation { tasksRestore(_id: "${id}") { recordId } }`)).code,
      'NOT_FOUND',
      'a live record'
    )

    await create('gone-1')
    await create('gone-2')
    await create('gone-1', bob)
    reset()
    const many = await ok(
      app,
      alice.headers,
      'mutation { tasksRemoveMany(filter: { _operators: { title: { in: ["gone-1", "gone-2"] } } }) { numAffected } }'
    )
    t.same(many.tasksRemoveMany, { numAffected: 2 })
    t.same(log.calls, [])
    t.same(events, ['tasks.deleted:2'])
    t.equal(
      await db
        .collection('tasks')
        .countDocuments({ title: { $in: ['gone-1', 'gone-2'] }, userId: alice.userId, deletedAt: { $ne: null } }),
      2,
      'tombstoned'
    )
    t.equal(
      await db.collection('tasks').countDocuments({ title: 'gone-1', userId: bob.userId, deletedAt: null }),
      1,
      "bob's record is untouched"
    )
    const history = await app.inject({ method: 'GET', url: `/api/v1/tasks/${id}/history`, headers: alice.headers })
    t.same(
      history.json().results.map((r: any) => r.action),
      ['restore', 'delete', 'create'],
      'audit rows as on REST'
    )
  }
)

t.test('without soft delete: RemoveById removes for good, no Restore mutation', async (t) => {
  const data = await ok(app, alice.headers, 'mutation { logsCreateOne(record: { line: "x" }) { recordId } }')
  const id = data.logsCreateOne.recordId
  await ok(app, alice.headers, `mutation { logsRemoveById(_id: "${id}") { recordId } }`)
  t.equal(await db.collection('logs').countDocuments({}), 0)
  const restore = await fails(app, alice.headers, `mutation { logsRestore(_id: "${id}") { recordId } }`)
  t.equal(restore.code, 'VALIDATION', 'the mutation does not exist')
  const many = await ok(
    app,
    alice.headers,
    'mutation { a: logsCreateMany(records: [{ line: "1" }, { line: "2" }]) { recordIds } b: logsRemoveMany(filter: {}) { numAffected } }'
  )
  t.same(many.b, { numAffected: 2 })
})

t.test("another tenant's records are out of reach of every write by id or filter", async (t) => {
  const id = await create('mine')
  t.equal((await fails(app, bob.headers, `mutation { tasksRemoveById(_id: "${id}") { recordId } }`)).code, 'NOT_FOUND')
  t.equal(
    (
      await fails(
        app,
        bob.headers,
        'mutation { tasksUpdateOne(filter: { title: "mine" }, record: { priority: 2 }) { recordId } }'
      )
    ).code,
    'NOT_FOUND'
  )
  t.same(
    (await ok(app, bob.headers, 'mutation { tasksRemoveMany(filter: { title: "mine" }) { numAffected } }'))
      .tasksRemoveMany,
    { numAffected: 0 }
  )
  const many = await ok(
    app,
    bob.headers,
    'mutation { tasksCreateMany(records: [{ title: "b1" }]) { records { userId } } }'
  )
  t.same(many.tasksCreateMany.records, [{ userId: bob.userId }], "stamped with the caller's tenant")
  t.match(await db.collection('tasks').findOne({ title: 'mine' }), {
    userId: alice.userId,
    priority: 1,
    deletedAt: null
  })
})

t.test('api clients cannot write', async (t) => {
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  const e = await fails(
    app,
    { 'x-client-id': client._id },
    'mutation { tasksCreateOne(record: { title: "x" }) { recordId } }'
  )
  t.equal(e.code, 'FORBIDDEN')
})
