import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { LEASES_COLLECTION } from '@svc/core/kit'
import softDelete from '../src/index.js'
import { SWEEP_LEASE } from '../src/sweep/sweep-timer.js'
import { buildApp, fakeClock, JWT_SECRET, makeUser, SCHEMAS } from './helper.js'

// Two replicas on one database: A's clock is 10 days behind (its sweeps find nothing due), B's
// would purge the tombstone. While A holds the lease B must not sweep; once A closes, B does.
t.test('the timer sweep is leased: one replica sweeps, another takes over when it closes', async (t) => {
  const behind = fakeClock()
  behind.advanceDays(-10)
  const { app: a, db } = await buildApp(t, { softDelete: { now: behind.now, retentionDays: 1, sweepIntervalMs: 20 } })
  const leases = db.collection<{ _id: string; holder: string; until: Date }>(LEASES_COLLECTION)
  const u = makeUser()
  const id = (
    await a.inject({ method: 'POST', url: '/api/v1/notes', headers: u.headers, payload: { body: 'x' } })
  ).json()._id
  t.equal((await a.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode, 200)
  const waitFor = async <T>(what: string, read: () => Promise<T | null>): Promise<T> => {
    for (let i = 0; i < 1000; i++) {
      const v = await read()
      if (v !== null) return v
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`timed out waiting for ${what}`)
  }
  const first = await waitFor('A to take the lease', async () => await leases.findOne({ _id: SWEEP_LEASE }))

  const b = Fastify({ logger: false })
  await b.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: SCHEMAS })
  await b.register(softDelete, { now: fakeClock().now, retentionDays: 1, sweepIntervalMs: 20 })
  t.teardown(async () => await b.close())
  await b.ready()
  // A renews its lease on each tick; B ticks as often and finds it held.
  let renewals = 0
  let last = first.until.getTime()
  await waitFor('five renewals by A', async () => {
    const doc = await leases.findOne({ _id: SWEEP_LEASE })
    t.equal(doc?.holder, first.holder, 'A still holds the lease')
    if (doc != null && doc.until.getTime() !== last) {
      renewals++
      last = doc.until.getTime()
    }
    return renewals >= 5 ? true : null
  })
  t.equal(await db.collection('notes').countDocuments(), 1, 'B did not sweep while A held the lease')

  await a.close()
  await waitFor('B to sweep', async () => ((await db.collection('notes').countDocuments()) === 0 ? true : null))
  const taken = await leases.findOne({ _id: SWEEP_LEASE })
  t.not(taken?.holder, first.holder, 'B holds the lease A released on close')
  await b.close()
  t.equal((await leases.findOne({ _id: SWEEP_LEASE }))?.until.getTime(), 0, 'a clean close releases the lease')
})
