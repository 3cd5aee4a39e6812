import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startDevDb } from '@svc/devdb'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { HEALTH_COLLECTION } from '../src/health.js'
import { workspace } from './fixtures/workspace.js'

t.setTimeout(120_000)

function testConfig () {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'health-test-secret',
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error('test config invalid')
  return config
}

const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/** Polls /healthz until it answers `status` (probes are reused for 1 s, so changes show within ~1 s). */
async function healthBecomes (
  app: Awaited<ReturnType<typeof buildServer>>,
  status: number,
  withinMs: number
): Promise<{ statusCode: number; body: unknown }> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const res = await app.inject({ method: 'GET', url: '/healthz' })
    if (res.statusCode === status || Date.now() > deadline) return { statusCode: res.statusCode, body: res.json() }
    await sleep(200)
  }
}

t.test('a database that answers but refuses writes is 503, and 200 once it takes writes again', async (t) => {
  const { db } = await getTestDb(t)
  const app = await buildServer(testConfig(), { db, logger: false })
  t.teardown(async () => await app.close())
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'healthy')
  t.equal((await db.command({ ping: 1 })).ok, 1, 'pings are answered throughout')

  // The server itself refuses the probe's write ($inc of a string): a ping would still say ok.
  await db
    .collection<{ _id: string; probes: unknown }>(HEALTH_COLLECTION)
    .replaceOne({ _id: 'probe' }, { probes: 'not a number' })
  const down = await healthBecomes(app, 503, 5000)
  t.equal(down.statusCode, 503, 'refused write → 503')
  t.same(down.body, {
    error: {
      code: 'SERVICE_UNAVAILABLE',
      message: 'the database refuses writes',
      details: { checks: { database: false, schemas: true } }
    }
  })

  await db.collection<{ _id: string }>(HEALTH_COLLECTION).deleteOne({ _id: 'probe' })
  const up = await healthBecomes(app, 200, 5000)
  t.same(
    up,
    { statusCode: 200, body: { status: 'ok', checks: { database: true, schemas: true } } },
    'writes taken again → 200'
  )
})

t.test('the embedded database on a full disk: 503 while writes fail, 200 once there is room', async (t) => {
  // devdb's test hook for a filling disk: the bytes its journal may still write.
  let free = Infinity
  const devdb = await startDevDb({ dbPath: mkdtempSync(join(tmpdir(), 'svc-health-')), port: 0, diskFree: () => free })
  t.teardown(async () => await devdb.stop())
  const client = new MongoClient(devdb.uri)
  await client.connect()
  t.teardown(async () => await client.close())
  const app = await buildServer(testConfig(), { db: client.db('svc'), logger: false })
  t.teardown(async () => await app.close())
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'healthy')

  free = 0
  const down = await healthBecomes(app, 503, 5000)
  t.same(
    down,
    {
      statusCode: 503,
      body: {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'the database refuses writes',
          details: { checks: { database: false, schemas: true } }
        }
      }
    },
    'disk full → 503'
  )
  t.equal((await client.db('svc').command({ ping: 1 })).ok, 1, 'while a ping still answers ok')

  free = Infinity
  const up = await healthBecomes(app, 200, 5000)
  t.equal(up.statusCode, 200, 'room again → 200')
})

t.test('the embedded database stopped: 503; restarted on the same port and files: 200 again', async (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'svc-health-'))
  let devdb = await startDevDb({ dbPath, port: 0 })
  const port = devdb.port
  t.teardown(async () => await devdb.stop())
  // Short server selection and heartbeats so the client notices the restart quickly.
  const client = new MongoClient(devdb.uri, { serverSelectionTimeoutMS: 1000, heartbeatFrequencyMS: 500 })
  await client.connect()
  t.teardown(async () => await client.close())
  const app = await buildServer(testConfig(), { db: client.db('svc'), logger: false })
  t.teardown(async () => await app.close())
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'healthy')

  await devdb.stop()
  const started = Date.now()
  const down = await healthBecomes(app, 503, 10_000)
  t.same(
    down,
    {
      statusCode: 503,
      body: {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'the database does not answer',
          details: { checks: { database: false, schemas: true } }
        }
      }
    },
    'stopped → 503'
  )
  t.ok(Date.now() - started < 10_000, 'answered within the probe bound, not hanging')

  devdb = await startDevDb({ dbPath, port })
  const up = await healthBecomes(app, 200, 20_000)
  t.equal(up.statusCode, 200, 'restarted → 200 again, same process, same client')
})
