// Cost of authenticating a bearer now that a token issued before a password reset is refused:
// a cached `passwordChangedAt` (the common case: the same user again within resetStalenessMs)
// against a cache miss (one users lookup). Calls app.svc.auth.authenticate directly, so the
// figures are the auth layer's own, without HTTP. The database runs in a child process.
// Usage: pnpm --filter @svc/core bench:auth   (MONGODB_URI=… for a real MongoDB; BENCH_CALLS=20000)
import type { FastifyRequest } from 'fastify'
import Fastify from 'fastify'
import { MongoClient, ObjectId } from 'mongodb'
import { signToken } from '@svc/testkit'
import { BenchProcesses } from '@svc/testkit/bench'
import svcCore from '../src/index.js'

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000)
const USERS = Math.min(CALLS, 2000)
const SECRET = 'bench-secret-0123456789abcdef0123'

const request = (userId: string): FastifyRequest =>
  ({
    headers: {
      authorization: `Bearer ${signToken({ user_id: userId, email: 'b@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })}`
    }
  }) as unknown as FastifyRequest

const processes = new BenchProcesses()
const database = await processes.database('svc_bench_auth')
const client = new MongoClient(database.uri)
try {
  await client.connect()
  const db = client.db()
  await db.dropDatabase()
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: SECRET, schemas: [] })
  await app.ready()
  // Users with a recorded reset, so a miss finds a document (the realistic, slower case).
  const ids = Array.from({ length: USERS }, () => new ObjectId())
  await db.collection('users').insertMany(
    ids.map((_id) => ({
      _id,
      email: `${_id.toHexString()}@example.test`,
      passwordChangedAt: new Date(Date.now() - 3_600_000)
    }))
  )
  const misses = ids.map((id) => request(id.toHexString()))
  const hit = request(ids[0].toHexString())
  await app.svc.auth.authenticate(hit)

  let t0 = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++) await app.svc.auth.authenticate(hit)
  const hitUs = Number(process.hrtime.bigint() - t0) / 1000 / CALLS
  t0 = process.hrtime.bigint()
  for (let i = 1; i < USERS; i++) await app.svc.auth.authenticate(misses[i])
  const missUs = Number(process.hrtime.bigint() - t0) / 1000 / (USERS - 1)

  console.log(`database: ${database.label}`)
  console.log(`authenticate, passwordChangedAt cached:  ${hitUs.toFixed(1)} µs per call (${CALLS} calls)`)
  console.log(`authenticate, cache miss (users lookup): ${missUs.toFixed(1)} µs per call (${USERS - 1} users)`)
  await app.close()
} finally {
  await client.close()
  processes.stop()
}
