import t, { type Test } from 'tap'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { getTestDb } from '@svc/testkit'
import svcCore, { type SvcCoreOptions } from '../src/index.js'
import { SchemaCheckError, SNAPSHOTS_COLLECTION } from '../src/kit.js'
import { JWT_SECRET } from './helper.js'
import { BACKFILL, BEFORE, schemaDir, seed } from './fixtures/evolution.js'

/** Starts core with the log lines captured; resolves the app, or rejects with start-up's error. */
async function start (
  t: Test,
  db: Db,
  options: Partial<SvcCoreOptions>,
  lines: Array<Record<string, unknown>> = []
): Promise<FastifyInstance> {
  const stream = new Writable({
    write (chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    }
  })
  const app = Fastify({ logger: { level: 'info', stream } })
  t.teardown(async () => await app.close())
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, intentReconcileMs: 0, ...options })
  await app.ready()
  return app
}

const hashOf = async (db: Db): Promise<string | undefined> =>
  (await db.collection(SNAPSHOTS_COLLECTION).findOne({}))?.hash

t.test(
  'start-up: refuses with pending migrations and records that do not fit; warns when told; the snapshot waits until resolved',
  async (t) => {
    const { db } = await getTestDb(t)
    await (await start(t, db, { schemas: [BEFORE] })).close()
    const first = await hashOf(db)
    t.ok(first, 'the first start wrote the snapshot')
    await seed(db, ['t1', 't2'], 30)
    const dir = schemaDir(t, { '0001-backfill-region.ts': BACKFILL })
    {
      const err = await start(t, db, { schemaDir: dir, schemaCheck: 'refuse' }).then(
        () => null,
        (e: unknown) => e
      )
      t.type(err, SchemaCheckError)
      t.match(
        (err as Error).message,
        /^schema changes need data before these schemas can be served:\n {2}- pending migrations: 0001-backfill-region \(run svc schema apply\)\n/
      )
      t.match(
        (err as Error).message,
        /v1\/deals: field region added: required, no default .* — ~?60 records in ≥?2 tenants do not fit/
      )
      t.match((err as Error).message, /SCHEMA_CHECK=warn serves anyway/)
      t.equal(await hashOf(db), first, 'a refused start leaves the snapshot')
    }
    {
      const lines: Array<Record<string, unknown>> = []
      const app = await start(t, db, { schemaDir: dir, schemaCheck: 'warn' }, lines)
      const summary = lines.find((l) => l.msg === 'schema plan at start-up')
      t.match(summary, { changes: { safe: 1, 'needs-data': 1 }, pending: ['0001-backfill-region'] })
      t.match(
        lines.find((l) => l.kind === 'field-added'),
        { level: 40, resource: 'v1/deals', class: 'needs-data', field: 'region', failing: 60, tenants: 2, exact: true }
      )
      t.match(
        lines.find((l) => Array.isArray(l.blocking)),
        { level: 40, msg: /serving anyway/ }
      )
      t.equal(
        await hashOf(db),
        first,
        'served with warnings: the snapshot still holds the last schemas served without problems'
      )
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/deals-schema',
        headers: { authorization: 'Bearer x' }
      })
      t.equal(res.statusCode, 401, 'the app serves')
      await app.svc.evolution.apply({ rate: 0 })
      await app.close()
    }
    {
      const lines: Array<Record<string, unknown>> = []
      await start(t, db, { schemaDir: dir, schemaCheck: 'refuse' }, lines)
      t.match(
        lines.find((l) => l.msg === 'schema snapshot written'),
        { level: 30 }
      )
      t.not(await hashOf(db), first, 'once nothing blocks, the snapshot becomes the files')
    }
    {
      const lines: Array<Record<string, unknown>> = []
      await start(t, db, { schemaDir: dir, schemaCheck: 'refuse' }, lines)
      t.match(
        lines.find((l) => l.msg === 'schema plan at start-up'),
        { changes: { safe: 0, 'needs-data': 0 }, pending: [] }
      )
      t.notOk(
        lines.some((l) => l.msg === 'schema snapshot written'),
        'an unchanged snapshot is not written again'
      )
    }
  }
)

t.test(
  'start-up: a new unique index over existing duplicates is reported per tenant before the build fails',
  async (t) => {
    const { db } = await getTestDb(t)
    await (await start(t, db, { schemas: [BEFORE] })).close()
    await seed(db, ['t1'], 3)
    await db.collection('deals').updateMany({}, { $set: { title: 'same' } })
    const unique = { ...BEFORE, compositeIndex: [{ userId: 1, title: 1 }] }
    const err = await start(t, db, { schemas: [unique], schemaCheck: 'refuse' }).then(
      () => null,
      (e: unknown) => e
    )
    t.match(
      (err as Error).message,
      /v1\/deals: unique index \{"userId":1,"title":1\} added.* — 3 records in 1 duplicate groups/
    )
    const warned = await start(t, db, { schemas: [unique], schemaCheck: 'warn' }).then(
      () => null,
      (e: unknown) => e
    )
    t.match(
      (warned as Error).message,
      /compositeIndex\[0\]: cannot create the unique index: E11000/,
      'warn serves only what can start: the build still refuses'
    )
  }
)

t.test('start-up: schemaCheck off writes nothing; the option is checked; production defaults to refuse', async (t) => {
  const { db } = await getTestDb(t)
  await start(t, db, { schemas: [BEFORE], schemaCheck: 'off' })
  t.equal(await hashOf(db), undefined)
  await t.rejects(
    start(t, db, { schemas: [BEFORE], schemaCheck: 'maybe' as never }),
    /option `schemaCheck` must be 'refuse', 'warn' or 'off'/
  )
  await seed(db, ['t1'], 1)
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  t.teardown(() => {
    // Restored either way: the files after this one in its share read it.
    if (env === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = env
  })
  await (await start(t, db, { schemas: [BEFORE] })).close()
  await t.rejects(
    start(t, db, { schemaDir: schemaDir(t, {}) }),
    SchemaCheckError,
    'NODE_ENV=production: the required field without a default refuses'
  )
})
