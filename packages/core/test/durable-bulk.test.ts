import t from 'tap'
import { type WriteResult } from '../src/index.js'
import { INTENTS_COLLECTION, type DurableDoc } from '../src/kit.js'
import { DURABLE_MODES, buildCoreApp } from './helper.js'

const SCHEMAS = [
  { path: 'items', fields: [{ name: 'n', type: Number, required: true }], compositeIndex: [{ userId: 1, n: 1 }] },
  { path: 'plain', fields: [{ name: 'n', type: Number, required: true }], compositeIndex: [{ userId: 1, n: 1 }] }
]

/** One `effects` row per record a result names (bulk results: one per record image). */
function perRecord (r: WriteResult): DurableDoc[] {
  const ids = r.records !== undefined ? r.records.map((x) => x.before._id) : [r.recordId!]
  return ids.map((id) => ({
    collection: 'effects',
    document: { _id: `${r.writeId}:${r.action}:${id}`, action: r.action, recordId: id }
  }))
}

const ctx: any = { identity: { kind: 'user', userId: '65f0000000000000000000a1', roles: ['user'] }, surface: 'graphql' }

for (const mode of DURABLE_MODES) {
  t.test(`${mode.name}: createMany and deleteMany leave exactly the documents of the records they wrote`, async (t) => {
    const app = await buildCoreApp(t, {
      schemas: SCHEMAS,
      options: { intentReconcileMs: 0, transactions: mode.transactions },
      plugins: [
        async (app) => {
          app.svc.services.get('items').addDurableEffect('per-record', perRecord)
        }
      ]
    })
    const service = app.svc.services.get('items')
    const effects = app.svc.db.collection('effects')
    await service.createMany(ctx, [{ n: 1 }, { n: 2 }])
    t.equal(await effects.countDocuments({ action: 'created' }), 2)

    // n: 2 exists: the ordered insertMany stops there, after inserting n: 3 — which stays only without a transaction.
    await t.rejects(
      service.createMany(ctx, [{ n: 3 }, { n: 2 }, { n: 4 }]),
      { code: 11000 },
      'the duplicate key (409 on every surface)'
    )
    const stored = (await app.svc.db.collection(service.model.collection).find({}).toArray()).map((d) => d.n).sort()
    if (mode.name === 'intents') t.same(stored, [1, 2, 3], 'the records before the duplicate were inserted')
    else t.same(stored, [1, 2], 'in a transaction the whole bulk is refused: nothing inserted')
    const created = await effects.find({ action: 'created' }).toArray()
    t.equal(created.length, stored.length, 'the documents of the records inserted, and none for the others')
    t.same(
      new Set(created.map((e) => e.recordId)),
      new Set((await app.svc.db.collection(service.model.collection).find({}).toArray()).map((d) => String(d._id)))
    )
    t.equal(await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' }), 0)

    t.same(await service.deleteMany(ctx, { n: { $lte: 2 } }), { numAffected: 2 })
    t.equal(
      await effects.countDocuments({ action: 'deleted' }),
      2,
      'one document per deleted record (from the bulk result)'
    )
    t.same(await service.deleteMany(ctx, { n: 99 }), { numAffected: 0 })
    t.equal(await effects.countDocuments({ action: 'deleted' }), 2, 'a delete of nothing leaves nothing')
    t.equal(await app.svc.db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' }), 0)

    // A schema without effects: with transactions its bulk writes are all-or-nothing too.
    const plain = app.svc.services.get('plain')
    await plain.createMany(ctx, [{ n: 1 }])
    await t.rejects(plain.createMany(ctx, [{ n: 2 }, { n: 1 }]), { code: 11000 })
    t.equal(
      await app.svc.db.collection(plain.model.collection).countDocuments(),
      mode.name === 'intents' ? 2 : 1,
      mode.name === 'intents' ? 'partial, as ever' : 'nothing of the refused bulk'
    )
  })
}
