import t from 'tap'
import type { Document } from 'mongodb'
import { getTestDb } from '@svc/testkit'
import type { RequestContext } from '../src/index.js'
import { DURABLE_MODES, buildCoreApp } from './helper.js'
import { BACKFILL, BEFORE, applyApp, schemaDir, seed } from './fixtures/evolution.js'

// `svc schema apply` against a database the previous release keeps serving (MONGODB_URI): its
// writes to the records being migrated must neither be lost under the migration's write nor
// make a record migrated twice or missed. Both sides write guarded on the state they read.

/** BACKFILL, also rewriting the field the previous release writes: a stale read would undo an update. */
const REWRITES_AMOUNT = BACKFILL.replace(
  'deal.touched = (deal.touched ?? 0) + 1',
  'deal.touched = (deal.touched ?? 0) + 1\n        deal.amount = Math.floor(deal.amount) + 0.5'
)

const as = (userId: string): RequestContext => ({
  identity: { kind: 'user', userId, roles: ['user'] },
  surface: 'rest'
})

for (const mode of DURABLE_MODES) {
  t.test(`${mode.name}: apply while the previous release updates the same records`, async (t) => {
    const { db } = await getTestDb(t)
    const tenants = ['t1', 't2', 't3']
    const migrated = await seed(db, tenants, 200)
    const ids = (
      await db
        .collection('deals')
        .find({}, { projection: { _id: 1, userId: 1 } })
        .toArray()
    ).map((d: Document) => ({ id: String(d._id), userId: String(d.userId) }))
    const options = { transactions: mode.transactions, intentReconcileMs: 0 }
    const live = await buildCoreApp(t, { db, schemas: [BEFORE], options: { ...options, schemaCheck: 'off' } })
    const app = await applyApp(t, db, schemaDir(t, { '0001-backfill-region.ts': REWRITES_AMOUNT }), options)
    const deals = live.svc.services.get('deals')

    // Four writers of the previous release, each over its own records (so an acknowledged amount
    // is the record's latest), across every tenant.
    const latest = new Map<string, number>()
    const running = { on: true, acked: 0, refused: [] as string[] }
    const writer = async (w: number): Promise<void> => {
      const mine = ids.filter((_r, i) => i % 4 === w)
      for (let n = 0; running.on; n++) {
        const { id, userId } = mine[(n * 37) % mine.length]
        const amount = 1000 + w * 100_000 + n
        try {
          await deals.updateById(as(userId), id, { amount })
          latest.set(id, amount)
          running.acked++
        } catch (err) {
          running.refused.push(`${(err as { code?: string }).code ?? ''} ${(err as Error).message}`)
        }
      }
    }
    const writers = [0, 1, 2, 3].map(writer)
    let duringApply = 0
    const result = await app.svc.evolution
      .apply({ batchSize: 25, rate: 0, onProgress: () => (duringApply = running.acked) })
      .finally(() => {
        running.on = false
      })
    await Promise.all(writers)

    t.same(result.applied, ['0001-backfill-region'])
    t.ok(duringApply >= 20, `the previous release wrote while apply ran (${duringApply} updates acknowledged)`)
    t.same(running.refused, [], 'no write of the previous release was refused')
    const stored = await db.collection('deals').find({}).toArray()
    t.equal(stored.filter((d) => d.touched === 1).length, migrated, 'every record migrated exactly once')
    t.equal(stored.filter((d) => d.region === undefined).length, 0, 'none missed')
    // The migration turns the amount it read into amount + 0.5: the integer part is the last update's.
    const lost = [...latest].filter(
      ([id, amount]) => Math.floor(stored.find((d) => String(d._id) === id)?.amount) !== amount
    )
    t.same(lost, [], `each of the ${latest.size} records updated keeps its last acknowledged amount`)
    const halves = stored.filter((d) => d.amount % 1 === 0.5).length
    t.ok(halves > 0, `the migration's own amounts are there too (${halves} records last written by it)`)
    const rows = await db.collection('rows').find({ operation: 'migrate' }).toArray()
    t.equal(rows.length, migrated, 'one migration row per record')
    t.equal(new Set(rows.map((r) => r.recordId)).size, migrated)
  })
}
