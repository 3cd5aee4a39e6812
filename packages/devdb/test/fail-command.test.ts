/**
 * configureFailPoint / failCommand as mongod offers it with test commands enabled: modes, error
 * codes and labels, closed connections, blocks, write concern errors, the appName filter — and
 * refused, as mongod refuses it, when test commands are off.
 */
import t from 'tap'
import { MongoClient, MongoServerError, type Document } from 'mongodb'
import { startDevDb } from '@svc/devdb'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t, { enableTestCommands: true })
const admin = h.client.db('admin')
const coll = h.db.collection<SpecDoc>('fc')
const failPoint = async (mode: unknown, data: Document): Promise<Document> =>
  await admin.command({ configureFailPoint: 'failCommand', mode, data })
const off = async (): Promise<Document> => await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })

t.test('without test commands configureFailPoint is no such command', async (t) => {
  const server = await startDevDb({ port: 0 })
  const client = new MongoClient(server.uri)
  t.teardown(async () => {
    await client.close()
    await server.stop()
  })
  const e = await mongoError(
    async () =>
      await client.db('admin').command({
        configureFailPoint: 'failCommand',
        mode: 'alwaysOn',
        data: { failCommands: ['find'], errorCode: 2 }
      })
  )
  t.equal(e.code, 59)
  t.equal(e.codeName, 'CommandNotFound')
  t.equal(e.message, "no such command: 'configureFailPoint'")
  t.same(await client.db('t').collection('c').find().toArray(), [], 'nothing was configured: find works')
})

t.test('errorCode with times: the next n matching commands fail, then it turns itself off', async (t) => {
  t.match(await failPoint({ times: 2 }, { failCommands: ['find'], errorCode: 2 }), { count: 0, ok: 1 })
  await coll.insertOne({ _id: 1 })
  for (let i = 0; i < 2; i++) {
    const e = await mongoError(async () => await coll.find().toArray())
    t.equal(e.code, 2)
    t.equal(e.codeName, 'BadValue')
    t.equal(e.message, "Failing command via 'failCommand' failpoint")
  }
  t.equal((await coll.find().toArray()).length, 1, 'the third find runs')
  t.equal((await off()).count, 2, 'count: the times it fired')
})

t.test('skip lets the first n matching commands through; unmatched commands never count', async (t) => {
  await failPoint({ skip: 1 }, { failCommands: ['distinct'], errorCode: 11601 })
  t.same(await coll.distinct('_id'), [1], 'first distinct skipped')
  await coll.countDocuments()
  const e = await mongoError(async () => await coll.distinct('_id'))
  t.equal(e.codeName, 'Interrupted')
  await off()
})

t.test('an unknown code is named Location<code>, as mongod names it', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['find'], errorCode: 4242 })
  const e = await mongoError(async () => await coll.find().toArray())
  t.equal(e.code, 4242)
  t.equal(e.codeName, 'Location4242')
})

t.test('errorLabels replace the labels mongod computes; without them the retryable label is computed', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['find'], errorCode: 2, errorLabels: ['Custom'] })
  const e = (await mongoError(async () => await coll.find().toArray())) as MongoServerError
  t.same(e.errorLabels, ['Custom'])
  // insert is retried once on RetryableWriteError (computed from 91), and runs exactly once
  await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 91 })
  await coll.insertOne({ _id: 2 })
  t.equal(await coll.countDocuments({ _id: 2 }), 1)
  // an empty list suppresses the label: the driver does not retry
  await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 91, errorLabels: [] })
  const e2 = (await mongoError(async () => await coll.insertOne({ _id: 3 }))) as MongoServerError
  t.equal(e2.code, 91)
  t.notOk(e2.hasErrorLabel('RetryableWriteError'))
  t.equal(await coll.countDocuments({ _id: 3 }), 0, 'a command failed by the fail point did not run')
})

t.test('closeConnection closes the connection without a reply; the driver retries the read', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['find'], closeConnection: true })
  t.equal((await coll.find().toArray()).length, 2, 'retryable read succeeded on a new connection')
  await failPoint({ times: 2 }, { failCommands: ['find'], closeConnection: true })
  const e = await mongoError(async () => await coll.find().toArray())
  t.match(e.message, /closed|ECONNRESET|socket/i, 'two closes: the retry fails too')
})

t.test('blockConnection delays the command, which then runs; a bad blockTimeMS fails it', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['find'], blockConnection: true, blockTimeMS: 300 })
  const started = Date.now()
  t.equal((await coll.find().toArray()).length, 2)
  t.ok(Date.now() - started >= 290, `blocked ${Date.now() - started} ms`)
  await failPoint({ times: 1 }, { failCommands: ['find'], blockConnection: true })
  const e = await mongoError(async () => await coll.find().toArray())
  t.equal(e.code, 72)
  t.equal(e.message, "must specify 'blockTimeMS' when 'blockConnection' is true")
})

t.test('a blocked command blocks only its own connection', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['find'], blockConnection: true, blockTimeMS: 1000 })
  const slow = coll.find().toArray()
  await new Promise((resolve) => setTimeout(resolve, 50))
  const started = Date.now()
  await coll.insertOne({ _id: 4 })
  t.ok(Date.now() - started < 900, `another connection's insert answered in ${Date.now() - started} ms`)
  await slow
})

t.test('writeConcernError: the write happens and the reply carries the error', async (t) => {
  await failPoint(
    { times: 1 },
    { failCommands: ['insert'], writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' } }
  )
  const e = await mongoError(async () => await coll.insertOne({ _id: 5 }, { writeConcern: { w: 1 } }))
  t.match(e.message, /Not enough data-bearing nodes/)
  t.equal(await coll.countDocuments({ _id: 5 }), 1, 'the write was applied')
})

t.test('writeConcernError inside a transaction: the statement fails without labels, as in mongod', async (t) => {
  const session = h.client.startSession()
  t.teardown(async () => await session.endSession())
  await failPoint(
    { times: 1 },
    { failCommands: ['insert'], writeConcernError: { code: 91, errmsg: 'Replication is being shut down' } }
  )
  session.startTransaction()
  const e = (await mongoError(async () => await coll.insertOne({ _id: 6 }, { session }))) as MongoServerError
  t.match(e.message, /Replication is being shut down/)
  t.notOk(e.hasErrorLabel('RetryableWriteError'))
  t.notOk(e.hasErrorLabel('TransientTransactionError'))
  await session.abortTransaction()
})

t.test('appName: only connections of that application fail', async (t) => {
  const other = new MongoClient(h.server.uri, { appName: 'victim' })
  t.teardown(async () => await other.close())
  await failPoint('alwaysOn', { failCommands: ['find'], errorCode: 2, appName: 'victim' })
  t.equal((await coll.find().toArray()).length, 4, 'this client has another appName')
  const e = await mongoError(async () => await other.db('test').collection('fc').find().toArray())
  t.equal(e.code, 2)
  await off()
  t.equal((await other.db('test').collection('fc').find().toArray()).length, 4, 'off: it works again')
})

t.test('failCommands names a command or its alias; configureFailPoint itself is never failed', async (t) => {
  await failPoint({ times: 1 }, { failCommands: ['buildinfo'], errorCode: 8 })
  const e = await mongoError(async () => await admin.command({ buildInfo: 1 }))
  t.equal(e.codeName, 'UnknownError')
  await failPoint('alwaysOn', { failCommands: ['configureFailPoint'], errorCode: 2 })
  t.equal((await off()).ok, 1)
})

t.test('configureFailPoint refuses what mongod refuses', async (t) => {
  t.equal(
    (await mongoError(async () => await h.db.command({ configureFailPoint: 'failCommand', mode: 'off' }))).code,
    13,
    'admin only'
  )
  t.equal(
    (await mongoError(async () => await admin.command({ configureFailPoint: 'noSuchFailPoint', mode: 'off' }))).code,
    266
  )
  t.equal(
    (await mongoError(async () => await admin.command({ configureFailPoint: 'failCommand', mode: 'sometimes' }))).code,
    2
  )
  t.equal(
    (await mongoError(async () => await admin.command({ configureFailPoint: 'failCommand', mode: { times: -1 } })))
      .code,
    2
  )
  t.equal(
    (
      await mongoError(
        async () => await admin.command({ configureFailPoint: 'failCommand', mode: 'alwaysOn', data: 3 })
      )
    ).code,
    14
  )
  t.equal(
    (
      await mongoError(
        async () => await admin.command({ configureFailPoint: 'failCommand', mode: { activationProbability: 2 } })
      )
    ).code,
    2
  )
})

t.test('onPrimaryTransactionalWrite: a failed commit writes nothing; a lost reply is answered again', async (t) => {
  await admin.command({
    configureFailPoint: 'onPrimaryTransactionalWrite',
    mode: { times: 1 },
    data: { failBeforeCommitExceptionCode: 1 }
  })
  await coll.insertOne({ _id: 20 })
  t.equal(await coll.countDocuments({ _id: 20 }), 1, 'the retry wrote it, once')
  await admin.command({
    configureFailPoint: 'onPrimaryTransactionalWrite',
    mode: { times: 2 },
    data: { failBeforeCommitExceptionCode: 1 }
  })
  await mongoError(async () => await coll.insertOne({ _id: 21 }))
  t.equal(await coll.countDocuments({ _id: 21 }), 0, 'both attempts failed before their commit')
  // times: 2, but the retry answered from the recorded reply does not fire it: the delete runs it out
  await admin.command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: { times: 2 } })
  const r = await coll.updateOne({ _id: 20 }, { $inc: { n: 1 } })
  t.equal(r.modifiedCount, 1, "the retry got the first execution's reply")
  t.same(await coll.findOne({ _id: 20 }), { _id: 20, n: 1 }, 'incremented once')
  t.equal(
    (await coll.deleteOne({ _id: 21 })).deletedCount,
    0,
    "the second firing closed the delete's connection; its retry answered"
  )
  await admin.command({
    configureFailPoint: 'onPrimaryTransactionalWrite',
    mode: { times: 1 },
    data: { closeConnection: false, failBeforeCommitExceptionCode: 112 }
  })
  const e = await mongoError(async () => await coll.insertOne({ _id: 22 }))
  t.equal(e.codeName, 'WriteConflict')
  t.equal(
    (await admin.command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: 'off' })).count,
    6,
    'times it fired, all configurations together'
  )
})

t.test('killAllSessions aborts the open transactions (the unified test runner calls it between tests)', async (t) => {
  const session = h.client.startSession()
  t.teardown(async () => await session.endSession())
  session.startTransaction()
  await coll.insertOne({ _id: 30 }, { session })
  await admin.command({ killAllSessions: [] })
  const e = await mongoError(async () => await session.commitTransaction())
  t.equal(e.codeName, 'NoSuchTransaction')
  await coll.insertOne({ _id: 30 })
  t.equal(await coll.countDocuments({ _id: 30 }), 1, 'its lock on _id 30 is gone')
  t.equal((await mongoError(async () => await admin.command({ killAllSessions: 1 }))).code, 14)
})
