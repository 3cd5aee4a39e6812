/**
 * `$listLocalSessions`: the server's local logical session cache (found by the driver's unified
 * CRUD spec tests, where devdb answered "Unrecognized pipeline stage name").
 */
import t from 'tap'
import type { Binary } from 'mongodb'
import { setup, mongoError, type SpecDoc } from './fixtures/devdb-harness.js'

const h = await setup(t)
const { db } = h
const coll = (name: string) => db.collection<SpecDoc>(name)

t.test('$listLocalSessions lists the sessions commands used', async (t) => {
  const session = h.client.startSession()
  await coll('lls').findOne({}, { session })
  const sessions = await h.client
    .db('admin')
    .aggregate([{ $listLocalSessions: {} }])
    .toArray()
  const mine = sessions.find((s) => (s._id.id as Binary).toString('hex') === session.id?.id.toString('hex'))
  t.ok(mine, 'the session is listed')
  t.ok(mine?.lastUse instanceof Date)
  t.equal(
    (mine?._id.uid as Binary).toString('hex'),
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'uid of no user'
  )
  await session.endSession()
  const e = await mongoError(
    async () =>
      await coll('lls')
        .aggregate([{ $listLocalSessions: {} }])
        .toArray()
  )
  t.equal(e.code, 73)
  const e2 = await mongoError(async () => await db.aggregate([{ $listLocalSessions: { bogus: 1 } }]).toArray())
  t.equal(e2.code, 40415)
})
