import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { MIGRATION_MARKS_COLLECTION, MIGRATIONS_COLLECTION, type ApplyProgress } from '../src/kit.js'
import { PROGRESS_COLLECTION } from '../src/evolution/migration-store.js'
import { DURABLE_MODES } from './helper.js'
import { BACKFILL, applyApp, schemaDir, seed } from './fixtures/evolution.js'

const hooks = (): number => (globalThis as { __evolutionHooks?: number }).__evolutionHooks ?? 0

for (const mode of DURABLE_MODES) {
  t.test(
    `${mode.name}: apply migrates each selected record once, tenant by tenant, with one migration row each; no hooks, events or other effects`,
    async (t) => {
      const { db } = await getTestDb(t)
      const migrated = await seed(db, ['t1', 't2', 't3'], 700, 5)
      const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': BACKFILL }), {
        transactions: mode.transactions
      })
      const events: string[] = []
      for (const type of ['deals.updated', 'deals.created']) {
        app.svc.events.on(type, () => {
          events.push(type)
        })
      }
      const hooksBefore = hooks()
      {
        const plan = await app.svc.evolution.plan({ exact: true })
        t.same(plan.migrations.pending, [
          { name: '0001-backfill-region', description: 'every deal gets a region', resources: ['v1/deals'] }
        ])
        const region = plan.changes.find((c) => c.field === 'region')!
        t.match(region, {
          kind: 'stored-data',
          impact: { failing: migrated, tenants: 3, afterMigrations: { failing: 0, tenants: 0 } }
        })
        t.match(plan.blocking[0], /pending migrations: 0001-backfill-region/)
      }
      const progress: ApplyProgress[] = []
      const result = await app.svc.evolution.apply({ batchSize: 300, rate: 0, onProgress: (p) => progress.push(p) })
      t.same(result.applied, ['0001-backfill-region'])
      t.match(result.resources, [{ resource: 'v1/deals', tenants: 3, migrated, unchanged: 0, skipped: 0 }])
      t.same([...new Set(progress.map((p) => p.tenant))], ['t1', 't2', 't3'], 'tenant by tenant')
      t.equal(progress.at(-1)!.migrated, migrated)
      t.equal(progress.at(-1)!.total, migrated, 'the filter selects exactly the records without a region')

      const deals = db.collection('deals')
      t.equal(await deals.countDocuments({ region: { $exists: false } }), 0, 'every record has a region')
      t.equal(await deals.countDocuments({ touched: 1 }), migrated, 'each migrated exactly once')
      t.equal(
        await deals.countDocuments({ touched: { $exists: false } }),
        15,
        'records the filter leaves out are untouched'
      )
      t.equal(await deals.countDocuments({ country: 'DE', region: 'eu' }), 3 * 175)
      t.equal(
        await deals.countDocuments({ touched: 1, updatedAt: { $lt: new Date(Date.now() - 30_000) } }),
        0,
        'updatedAt moved'
      )

      const rows = await db.collection('rows').find({}).toArray()
      t.equal(rows.length, migrated, 'one row per migrated record')
      t.equal(new Set(rows.map((r) => r.recordId)).size, migrated)
      t.ok(rows.every((r) => r.operation === 'migrate' && r.migration === '0001-backfill-region'))
      t.match(rows[0], { before: { title: String, country: String }, after: { region: String, touched: 1 } })
      t.notOk('region' in rows[0].before, 'before is the stored record')
      t.equal(await db.collection('outbox').countDocuments(), 0, 'effects without `migrations: true` see no migration')
      t.same(events, [], 'no record event')
      t.equal(hooks(), hooksBefore, 'no hook ran')

      t.equal(
        await db.collection(MIGRATION_MARKS_COLLECTION).countDocuments(),
        0,
        'markers are removed once the run completed'
      )
      t.equal(await db.collection(PROGRESS_COLLECTION).countDocuments(), 0, 'and so are the checkpoints')
      t.match(await db.collection(MIGRATIONS_COLLECTION).findOne({ _id: '0001-backfill-region' as never }), {
        status: 'done',
        migrated,
        unchanged: 0,
        resources: ['v1/deals']
      })
      {
        const again = await app.svc.evolution.apply({ rate: 0 })
        t.same([again.pending, again.applied, again.resources], [[], [], []], 'nothing left to do')
        const plan = await app.svc.evolution.plan()
        t.same(plan.migrations, { applied: ['0001-backfill-region'], pending: [], edited: [] })
        t.notOk(
          plan.changes.some((c) => c.impact !== undefined && c.impact.failing > 0),
          'every stored record fits the files'
        )
      }
    }
  )
}

t.test('a run interrupted between batches continues where it stopped: no record twice, none missed', async (t) => {
  const { db } = await getTestDb(t)
  const migrated = await seed(db, ['t1', 't2', 't3', 't4'], 250)
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': BACKFILL }))
  let batches = 0
  await t.rejects(
    app.svc.evolution.apply({
      batchSize: 100,
      rate: 0,
      onProgress: () => {
        if (++batches === 6) throw new Error('crash')
      }
    }),
    /crash/
  )
  const partway = await db.collection('deals').countDocuments({ touched: 1 })
  t.equal(partway, 500, 'six batches (two tenants of 100 + 100 + 50) landed')
  t.ok((await db.collection(MIGRATION_MARKS_COLLECTION).countDocuments()) > 0, 'their markers are kept for the rerun')
  const seen: Array<string | null> = []
  const rest = await app.svc.evolution.apply({ batchSize: 100, rate: 0, onProgress: (p) => seen.push(p.tenant) })
  t.equal(rest.resources[0].migrated, migrated - partway)
  t.equal(seen[0], 't3', 'the tenants that were done are not read again')
  t.equal(await db.collection('deals').countDocuments({ touched: 1 }), migrated)
  t.equal(await db.collection('deals').countDocuments({ touched: { $ne: 1 } }), 0)
  t.equal(await db.collection('rows').countDocuments(), migrated, 'one row per record over both runs')
})

t.test('a tenant first (a canary), then everyone: the canary is not migrated twice', async (t) => {
  const { db } = await getTestDb(t)
  const migrated = await seed(db, ['t1', 't2'], 120)
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': BACKFILL }))
  const canary = await app.svc.evolution.apply({ tenant: 't2', rate: 0 })
  t.same(canary.applied, [], 'a tenant run does not mark the migration applied')
  t.equal(canary.resources[0].migrated, 120)
  t.equal(await db.collection('deals').countDocuments({ userId: 't1', touched: 1 }), 0, 'other tenants wait')
  const all = await app.svc.evolution.apply({ rate: 0 })
  t.same(all.applied, ['0001-backfill-region'])
  t.equal(all.resources[0].migrated, 120, 'only t1 is left')
  t.equal(await db.collection('deals').countDocuments({ touched: 1 }), migrated)
  t.equal(await db.collection('rows').countDocuments(), migrated)
})

t.test('throttled: a rate bounds records read per second', async (t) => {
  const { db } = await getTestDb(t)
  await seed(db, ['t1'], 60)
  const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': BACKFILL }))
  const result = await app.svc.evolution.apply({ batchSize: 20, rate: 100 })
  t.ok(result.ms >= 550, `60 records at 100/s take at least 0.6 s (${result.ms} ms)`)
})
