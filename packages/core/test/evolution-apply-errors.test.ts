import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { getTestDb } from '@svc/testkit'
import {
  ApplyLockedError,
  MIGRATION_MARKS_COLLECTION,
  MigrationInvalidError,
  MigrationStepError,
  MIGRATIONS_COLLECTION
} from '../src/kit.js'
import { MigrationStore, PROGRESS_COLLECTION } from '../src/evolution/migration-store.js'
import type { ResourceServices } from '../src/service/index.js'
import { BACKFILL, applyApp, schemaDir, seed } from './fixtures/evolution.js'

/** Like BACKFILL, but tenant t2's records whose amount is 3 get a region the schema does not allow. */
const MARS = BACKFILL.replace(
  'deal.touched = (deal.touched ?? 0) + 1',
  "deal.touched = (deal.touched ?? 0) + 1\n        if (deal.userId === 't2' && deal.amount === 3) deal.region = 'mars'"
)

t.test(
  'a migrated record that does not fit the files stops apply before its batch is written; the fixed file resumes',
  async (t) => {
    const { db } = await getTestDb(t)
    const migrated = await seed(db, ['t1', 't2', 't3'], 10)
    const dir = schemaDir(t, { '0001-backfill-region.ts': MARS })
    const app = await applyApp(t, db, dir)
    const err = await app.svc.evolution.apply({ batchSize: 4, rate: 0 }).then(
      () => null,
      (e: unknown) => e
    )
    t.type(err, MigrationInvalidError)
    t.match(
      (err as Error).message,
      /^0001-backfill-region left record [0-9a-f]{24} \(tenant t2\) not fitting the schema: region must be one of: eu, us, other$/
    )
    t.match(err, { userId: 't2', issues: [{ field: 'region' }] })
    const deals = db.collection('deals')
    t.equal(await deals.countDocuments({ userId: 't1', touched: 1 }), 10, 'the tenant before it is done')
    t.equal(
      await deals.countDocuments({ userId: 't2', touched: 1 }),
      0,
      'nothing of the batch holding the record was written (amounts 0–3)'
    )
    t.equal(await deals.countDocuments({ region: 'mars' }), 0)
    t.equal(await db.collection(MIGRATIONS_COLLECTION).countDocuments({ status: 'done' }), 0, 'not applied')
    writeFileSync(join(dir, 'migrations', '0001-backfill-region.ts'), BACKFILL)
    const rest = await app.svc.evolution.apply({ batchSize: 4, rate: 0 })
    t.same(rest.applied, ['0001-backfill-region'])
    t.equal(rest.resources[0].migrated, 20)
    t.equal(await deals.countDocuments({ touched: 1 }), migrated)
    t.equal(await db.collection('rows').countDocuments(), migrated)
  }
)

t.test('--dry-run: counts, before/after samples and the records that would not fit; nothing is written', async (t) => {
  const { db } = await getTestDb(t)
  await seed(db, ['t1', 't2'], 10, 2)
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': MARS }))
  const dry = await app.svc.evolution.apply({ dryRun: true, batchSize: 4, samples: 3 })
  t.equal(dry.dryRun, true)
  t.same(dry.applied, [])
  t.match(dry.resources, [{ resource: 'v1/deals', tenants: 2, scanned: 20, migrated: 20, unchanged: 0 }])
  t.equal(dry.samples.length, 3)
  t.match(dry.samples[0], {
    userId: 't1',
    images: [
      {
        migration: '0001-backfill-region',
        before: { country: 'DE' },
        after: { country: 'DE', region: 'eu', touched: 1 }
      }
    ]
  })
  t.notOk('region' in dry.samples[0].images[0].before)
  t.match(dry.invalid, [
    {
      userId: 't2',
      issues: [{ field: 'region', message: 'must be one of: eu, us, other' }],
      images: [{ after: { region: 'mars' } }]
    }
  ])
  t.equal(
    await db.collection('deals').countDocuments({ region: { $exists: true } }),
    4,
    'only the records that had one'
  )
  t.equal(await db.collection('rows').countDocuments(), 0)
  t.equal(await db.collection(MIGRATION_MARKS_COLLECTION).countDocuments(), 0)
  t.equal(await db.collection(MIGRATIONS_COLLECTION).countDocuments(), 0, 'no lock, nothing applied')
})

t.test('checkpoints lost after a crash: the markers alone keep every record to one run of the migration', async (t) => {
  const { db } = await getTestDb(t)
  const migrated = await seed(db, ['t1', 't2'], 50)
  // No filter: a record already migrated would still be selected, and `touched` would count twice.
  const dir = schemaDir(t, {
    '0001-backfill-region.ts': BACKFILL.replace('filter: { region: { $exists: false } },\n', '')
  })
  const app = await applyApp(t, db, dir)
  let n = 0
  await t.rejects(
    app.svc.evolution.apply({
      batchSize: 20,
      rate: 0,
      onProgress: () => {
        if (++n === 4) throw new Error('crash')
      }
    })
  )
  await db.collection(PROGRESS_COLLECTION).deleteMany({})
  const rest = await app.svc.evolution.apply({ batchSize: 20, rate: 0 })
  t.equal(rest.resources[0].skipped, 70, 'the records of the first run are read again and skipped')
  t.equal(rest.resources[0].migrated, migrated - 70)
  t.equal(await db.collection('deals').countDocuments({ touched: 1 }), migrated)
  t.equal(await db.collection('rows').countDocuments(), migrated)
})

t.test('up that throws, or answers something that is not a record: plan lists it, apply stops naming it', async (t) => {
  const { db } = await getTestDb(t)
  await seed(db, ['t1'], 3)
  const throws = BACKFILL.replace(
    'deal.touched = (deal.touched ?? 0) + 1',
    "if (deal.amount === 1) throw new Error('no country rule'); deal.touched = 1"
  )
  const app = await applyApp(
    t,
    db,
    schemaDir(t, {
      '0001-backfill-region.ts': throws,
      '0002-bad.ts': 'export default { resources: { deals: { filter: { amount: 2 }, up: () => 42 } } }\n'
    })
  )
  const plan = await app.svc.evolution.plan()
  t.match(plan.migrationFailures, [
    { migration: '0001-backfill-region', message: /up threw: no country rule$/ },
    { migration: '0002-bad', message: /up must return the record \(an object\) or nothing$/ }
  ])
  t.match(plan.blocking.join('\n'), /no country rule/)
  const err = await app.svc.evolution.apply({ rate: 0 }).then(
    () => null,
    (e: unknown) => e
  )
  t.type(err, MigrationStepError)
  t.match(err, {
    migration: '0001-backfill-region',
    message: /^migration 0001-backfill-region on record [0-9a-f]{24}: up threw: no country rule$/
  })
  t.equal(await db.collection('deals').countDocuments({ touched: 1 }), 0)
})

t.test('migration files: names, numbers, resources and exports are checked before anything runs', async (t) => {
  const { db } = await getTestDb(t)
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ 'backfill.ts': BACKFILL }, /invalid migration .*backfill\.ts: file names are NNNN-name\.ts/],
    [{ '0001-a.ts': BACKFILL, '0001-b.ts': BACKFILL }, /0001-b\.ts: number 0001 is also used by 0001-a/],
    [
      { '0001-a.ts': 'export default { resources: { deal: { up () {} } } }\n' },
      /resources\.deal: no schema v1\/deal — did you mean 'v1\/deals'\?/
    ],
    [
      { '0001-a.ts': 'export default { resources: { deals: { up: 1 } } }\n' },
      /resources\.deals\.up must be a function/
    ],
    [
      { '0001-a.ts': 'export default { resources: { deals: { up () {}, filter: [] } } }\n' },
      /filter must be a filter object/
    ],
    [{ '0001-a.ts': 'export default { resources: {} }\n' }, /resources must map at least one schema path/],
    [{ '0001-a.ts': 'export default 42\n' }, /the default export must be an object/],
    [
      { '0001-a.ts': 'export default { description: 1, resources: { deals: { up () {} } } }\n' },
      /description must be a string/
    ],
    [{ '0001-a.ts': "throw new Error('broken import')\n" }, /cannot be imported: broken import/]
  ]
  for (const [files, message] of cases) {
    const app = await applyApp(t, db, schemaDir(t, files))
    await t.rejects(app.svc.evolution.plan(), message, Object.keys(files).join(', '))
  }
  const ok = await applyApp(
    t,
    db,
    schemaDir(t, {
      '0002-v.ts': "export default { resources: { 'v1/deals': { up () {} } } }\n",
      '.hidden.ts': 'x',
      'notes.d.ts': 'export {}'
    })
  )
  t.same(
    (await ok.svc.evolution.migrations()).map((m) => [m.name, m.number, [...m.resources.keys()]]),
    [['0002-v', 2, ['v1/deals']]]
  )
})

t.test('one apply at a time: a live holder is refused, an expired or dead one is taken over', async (t) => {
  const { db } = await getTestDb(t)
  await seed(db, ['t1'], 2)
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': BACKFILL }))
  const store = new MigrationStore(db)
  const held = await store.lock(60_000)
  await t.rejects(app.svc.evolution.apply({ rate: 0 }), ApplyLockedError)
  await t.rejects(store.lock(1000), /another svc schema apply is running \(pid \d+ on .+, since .+\)/)
  t.equal(await store.renew(held, 60_000), true)
  await db
    .collection(MIGRATIONS_COLLECTION)
    .updateOne({ _id: '#apply-lock' as never }, { $set: { pid: 2 ** 22 + 12345 } })
  const taken = await store.lock(60_000)
  t.not(taken, held, 'a holder whose process is gone (this host) loses the lock')
  t.equal(await store.renew(held, 1000), false, 'the old holder learns it on its next renewal')
  await db
    .collection(MIGRATIONS_COLLECTION)
    .updateOne({ _id: '#apply-lock' as never }, { $set: { host: 'elsewhere', leaseUntil: new Date(0) } })
  const expired = await store.lock(60_000)
  await store.unlock(expired)
  const result = await app.svc.evolution.apply({ rate: 0 })
  t.same(result.applied, ['0001-backfill-region'])
})

t.test('a migration cannot move a record to another tenant, nor change its id or timestamps', async (t) => {
  const { db } = await getTestDb(t)
  await seed(db, ['t1'], 3)
  const hijack = BACKFILL.replace(
    'deal.touched = (deal.touched ?? 0) + 1',
    "deal.touched = 1; deal.userId = 't2'; deal._id = '0123456789abcdef01234567'; deal.createdAt = '2000-01-01'"
  )
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': hijack }))
  const before = await db.collection('deals').find({}).sort({ _id: 1 }).toArray()
  const result = await app.svc.evolution.apply({ rate: 0 })
  t.equal(result.resources[0].migrated, 3)
  const after = await db.collection('deals').find({}).sort({ _id: 1 }).toArray()
  t.same(
    after.map((d) => [String(d._id), d.userId, d.createdAt.getTime()]),
    before.map((d) => [String(d._id), d.userId, d.createdAt.getTime()]),
    'ids, tenant and createdAt are the stored ones'
  )
  t.ok(
    after.every((d) => d.touched === 1 && typeof d.region === 'string'),
    'the rest of the migration applied'
  )
  const rows = await db.collection('rows').find({}).toArray()
  t.ok(
    rows.length === 3 && rows.every((r) => r.before.userId === 't1' && r.after.userId === 't1'),
    'the rows show the stored tenant'
  )
})

t.test('migrateBatch, which core keeps off the public ResourceService, is an operator operation', async (t) => {
  const { db } = await getTestDb(t)
  const app = await applyApp(t, db, schemaDir(t, {}))
  // Core's own view of the services (the class): plugins and surfaces cannot name migrateBatch.
  const deals = (app.svc.services as ResourceServices).get('deals')
  const user = { identity: { kind: 'user' as const, userId: 't1', roles: ['admin'] }, surface: 'rest' as const }
  await t.rejects(deals.migrateBatch(user, { tenant: null, after: null, limit: 1, steps: [] }), {
    statusCode: 403,
    message: /svc schema apply/
  })
  await t.rejects(deals.settleMigrationWrites(user), { statusCode: 403, message: /svc schema apply/ })
})
