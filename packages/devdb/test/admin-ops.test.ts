/**
 * currentOp / $currentOp, killOp, getLog and replSetGetStatus (rs.status()) as mongod 7.0 answers
 * them; an operation blocked by failCommand is the in-flight operation they see.
 */
import t from 'tap'
import { MongoClient, type Document } from 'mongodb'
import { startDevDb } from '@svc/devdb'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t, { enableTestCommands: true }, 'ops')
const admin = h.client.db('admin')
const coll = h.db.collection<SpecDoc>('jobs')
await coll.insertMany([
  { _id: 1, state: 'new' },
  { _id: 2, state: 'done' }
])
const victim = new MongoClient(h.server.uri, { appName: 'slow-app', retryReads: false })
t.teardown(async () => await victim.close())

/** Starts a find on the victim client that the fail point holds for `ms`. */
async function blockedFind (ms: number, filter: Document = { state: 'new' }): Promise<{ pending: Promise<unknown> }> {
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['find'], blockConnection: true, blockTimeMS: ms, appName: 'slow-app' }
  })
  const p = victim
    .db('ops')
    .collection('jobs')
    .find(filter)
    .toArray()
    .then(
      (r) => r,
      (e: Error) => e
    )
  // the victim connects first (handshake, pool): wait until its find is in flight
  for (let i = 0; i < 100; i++) {
    const { inprog } = await admin.command({ currentOp: 1, appName: 'slow-app' })
    if (inprog.length > 0) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // wrapped: an async function would wait for a promise it returns
  return { pending: p }
}

t.test('$currentOp lists the operation in flight with its opid, ns, command, time and session', async (t) => {
  const { pending } = await blockedFind(1500)
  const ops = await admin.aggregate([{ $currentOp: {} }, { $match: { appName: 'slow-app' } }]).toArray()
  t.equal(ops.length, 1)
  const [op] = ops
  t.match(op, {
    type: 'op',
    active: true,
    op: 'query',
    ns: 'ops.jobs',
    appName: 'slow-app',
    command: { find: 'jobs', filter: { state: 'new' } }
  })
  t.type(op.opid, 'number')
  t.ok(op.microsecs_running > 0, `running for ${op.microsecs_running} µs`)
  t.equal(op.secs_running, 0)
  t.ok(op.lsid?.id, 'the implicit session of the find')
  t.match(op.client, /^127\.0\.0\.1:\d+$/)
  t.equal(op.clientMetadata.application.name, 'slow-app')
  const self = await admin.aggregate([{ $currentOp: {} }, { $match: { 'command.aggregate': 1 } }]).toArray()
  t.equal(self.length, 1, 'the $currentOp aggregate sees itself, as in mongod')
  t.same(await pending, [{ _id: 1, state: 'new' }], 'the blocked find then runs')
})

t.test('killOp interrupts it: the client gets Interrupted (11601)', async (t) => {
  const { pending } = await blockedFind(5000)
  const { inprog } = await admin.command({ currentOp: 1, appName: 'slow-app' })
  t.equal(inprog.length, 1, 'the currentOp command filters like its $match')
  const started = Date.now()
  t.match(await admin.command({ killOp: 1, op: inprog[0].opid }), { info: 'attempting to kill op', ok: 1 })
  const e = (await pending) as { code?: number; codeName?: string; message: string }
  t.equal(e.code, 11601)
  t.equal(e.codeName, 'Interrupted')
  t.equal(e.message, 'operation was interrupted')
  t.ok(Date.now() - started < 2000, 'it did not wait for the block to end')
  t.equal((await admin.command({ currentOp: 1, appName: 'slow-app' })).inprog.length, 0)
  const log = (await admin.command({ getLog: 'global' })).log.map((l: string) => JSON.parse(l))
  t.ok(
    log.some((l: Document) => l.id === 20482 && l.attr.opId === inprog[0].opid),
    'the kill is logged'
  )
  t.match(await admin.command({ killOp: 1, op: 999_999 }), { ok: 1 }, 'an unknown opid is no error, as in mongod')
})

t.test(
  'currentOp: a top-level $or is a filter; a command over 1 KB is truncated unless $truncateOps is false',
  async (t) => {
    const note = 'n'.repeat(2000)
    const { pending } = await blockedFind(1500, { state: 'new', note: { $ne: note } })
    const or = await admin.command({ currentOp: 1, $or: [{ appName: 'slow-app' }, { op: 'none' }] })
    t.equal(or.inprog.length, 1)
    t.type(or.inprog[0].command.$truncated, 'string', 'truncated, as mongod by default')
    t.ok(or.inprog[0].command.$truncated.length <= 1000)
    const full = await admin.command({ currentOp: 1, appName: 'slow-app', $truncateOps: false })
    t.equal(full.inprog[0].command.filter.note.$ne, note, 'with test commands, $truncateOps: false shows it whole')
    t.same(await pending, [{ _id: 1, state: 'new' }])
  }
)

t.test('idle connections with $all, idle transactions as idleSession', async (t) => {
  const session = h.client.startSession()
  session.startTransaction()
  await coll.insertOne({ _id: 3, state: 'txn' }, { session })
  const idle = await admin.command({ currentOp: 1, $all: true, active: false })
  t.ok(
    idle.inprog.some((o: Document) => o.type === 'op' && o.active === false && typeof o.connectionId === 'number'),
    'idle connections'
  )
  const txn = idle.inprog.find((o: Document) => o.type === 'idleSession')
  t.match(txn, { desc: 'inactive transaction', active: false, transaction: { parameters: { autocommit: false } } })
  t.equal(txn.lsid.id.toString('hex'), session.id?.id.toString('hex'))
  await session.abortTransaction()
  await session.endSession()
  const after = await admin.command({ currentOp: 1, type: 'idleSession' })
  t.equal(after.inprog.length, 0, 'gone once aborted')
})

t.test('currentOp and $currentOp refuse as mongod does', async (t) => {
  t.equal((await mongoError(async () => await h.db.command({ currentOp: 1 }))).code, 13)
  t.equal((await mongoError(async () => await h.db.aggregate([{ $currentOp: {} }]).toArray())).code, 73)
  t.equal((await mongoError(async () => await admin.aggregate([{ $currentOp: { nope: true } }]).toArray())).code, 40415)
  t.equal((await mongoError(async () => await admin.aggregate([{ $currentOp: { allUsers: 1 } }]).toArray())).code, 14)
  const idleCursors = await mongoError(
    async () => await admin.aggregate([{ $currentOp: { idleCursors: true } }]).toArray()
  )
  t.equal(idleCursors.code, 238)
  t.equal((await mongoError(async () => await admin.command({ killOp: 1 }))).code, 4)
  t.equal((await mongoError(async () => await admin.command({ killOp: 1, op: 'x' }))).code, 14)
})

t.test("getLog: the log names, the start warnings and the global ring in mongod's format", async (t) => {
  t.same((await admin.command({ getLog: '*' })).names, ['global', 'startupWarnings'])
  const warnings = await admin.command({ getLog: 'startupWarnings' })
  t.equal(warnings.totalLinesWritten, 1)
  t.match(JSON.parse(warnings.log[0]), { s: 'W', c: 'CONTROL', id: 22120, tags: ['startupWarnings'] })
  const global = await admin.command({ getLog: 'global' })
  const lines = global.log.map((l: string) => JSON.parse(l))
  t.ok(
    lines.every((l: Document) => typeof l.t.$date === 'string' && typeof l.msg === 'string'),
    'every line is structured JSON'
  )
  t.ok(
    lines.some((l: Document) => l.id === 51800 && l.attr.doc.application?.name === 'slow-app'),
    'client metadata'
  )
  t.ok(
    lines.some((l: Document) => l.id === 51803 && l.attr.durationMillis >= 100),
    'the blocked find was a slow query'
  )
  t.equal((await mongoError(async () => await admin.command({ getLog: 'nope' }))).code, 96)
  t.equal((await mongoError(async () => await admin.command({ getLog: 1 }))).code, 14)
  t.equal((await mongoError(async () => await h.db.command({ getLog: 'global' }))).code, 13)
})

t.test("a slow command over 10 KB is truncated in its log line, as mongod's maxLogSizeKB", async (t) => {
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['insert'], blockConnection: true, blockTimeMS: 150 }
  })
  await coll.insertOne({ _id: 50, blob: 'b'.repeat(100_000) })
  const lines: string[] = (await admin.command({ getLog: 'global' })).log
  const slow = lines
    .map((l) => JSON.parse(l))
    .find((l: Document) => l.id === 51803 && l.attr.ns === 'ops.jobs' && l.attr.command.$truncated !== undefined)
  t.ok(slow, 'the slow insert is logged')
  t.ok(slow.attr.command.$truncated.length <= 10 * 1024)
  t.ok(
    lines.every((l) => l.length < 12 * 1024),
    'no line holds the 100 KB document'
  )
})

t.test('the global log keeps the last 1024 lines', async (t) => {
  for (let i = 0; i < 600; i++) {
    const c = new MongoClient(h.server.uri, { maxPoolSize: 1, monitorCommands: false })
    await c.connect()
    await c.close()
    if ((await admin.command({ getLog: 'global' })).totalLinesWritten > 1100) break
  }
  const global = await admin.command({ getLog: 'global' })
  t.ok(global.totalLinesWritten > 1024)
  t.equal(global.log.length, 1024)
})

t.test('replSetGetStatus: the one member is PRIMARY, its optime the last write', async (t) => {
  await coll.insertOne({ _id: 10 })
  const status = await admin.command({ replSetGetStatus: 1 })
  t.match(status, { set: 'rs0', myState: 1, majorityVoteCount: 1, writeMajorityCount: 1, votingMembersCount: 1, ok: 1 })
  t.equal(status.members.length, 1)
  t.match(status.members[0], {
    _id: 0,
    name: `127.0.0.1:${h.server.port}`,
    health: 1,
    state: 1,
    stateStr: 'PRIMARY',
    self: true
  })
  t.ok(status.optimes.appliedOpTime.ts.equals(status.operationTime), 'the last write is applied')
  t.ok(status.optimes.durableOpTime.ts.equals(status.optimes.appliedOpTime.ts))
  const hello = await admin.command({ hello: 1 })
  t.equal(status.members[0].name, hello.primary, 'the member hello names as primary')
})

t.test('a standalone answers replSetGetStatus as a standalone mongod', async (t) => {
  const server = await startDevDb({ port: 0, replSet: false })
  const client = new MongoClient(server.uri)
  t.teardown(async () => {
    await client.close()
    await server.stop()
  })
  const e = await mongoError(async () => await client.db('admin').command({ replSetGetStatus: 1 }))
  t.equal(e.code, 76)
  t.equal(e.codeName, 'NoReplicationEnabled')
  t.equal(e.message, 'not running with --replSet')
})
