import t from 'tap'
import { buildCoreApp } from './helper.js'

// Operations GraphQL needs: several creates, update-first-match, update-many without upsert,
// delete-many. None fires hooks (spec hook table); tenancy and validation as everywhere.
const calls: string[] = []
const schemas = [
  {
    path: 'items',
    fields: [
      { name: 'n', type: Number, required: true },
      { name: 'tag', type: String }
    ],
    hooks: {
      beforeCreate: () => {
        calls.push('beforeCreate')
      },
      beforeUpdate: () => {
        calls.push('beforeUpdate')
      },
      beforeDelete: () => {
        calls.push('beforeDelete')
      }
    }
  }
]

t.test('createMany, updateOne, bulkPut without upsert and deleteMany', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('items')
  const ctx = (userId: string): any => ({ identity: { kind: 'user', userId, roles: ['user'] }, surface: 'graphql' })
  const a = ctx('65f0000000000000000000a1')
  const b = ctx('65f0000000000000000000b2')
  const results: any[] = []
  service.onWrite((r) => {
    results.push(r)
  })
  const purged: unknown[] = []
  service.onPurge(({ docs }) => {
    purged.push(...docs)
  })

  const created = await service.createMany(a, [{ n: 1, tag: 'x' }, { n: 2, tag: 'x' }, { n: 3 }])
  t.same(
    created.map((r) => r.n),
    [1, 2, 3]
  )
  await service.createMany(b, [{ n: 1, tag: 'x' }])
  await t.rejects(service.createMany(a, [{ n: 4 }, { tag: 'no n' }]), {
    code: 'VALIDATION',
    details: { field: 'records.1.n', index: 1 }
  })
  await t.rejects(service.createMany(a, []), { code: 'VALIDATION', details: { field: 'records' } })
  t.equal(
    await app.svc.db.collection(service.model.collection).countDocuments({ n: 4 }),
    0,
    'one bad record writes none'
  )

  const first = await service.updateOne(a, { filter: { tag: 'x' }, sort: 'n:desc' }, { tag: 'y' })
  t.equal(first.n, 2)
  const second = await service.updateOne(a, { filter: { tag: 'x' }, sort: 'n:asc', skip: 0 }, { tag: 'z' })
  t.equal(second.n, 1)
  await t.rejects(
    service.updateOne(a, { filter: { tag: 'x' } }, { tag: 'y' }),
    { code: 'NOT_FOUND' },
    "b's x is not a's"
  )
  await t.rejects(service.updateOne(a, { skip: -1 }, { tag: 'y' }), { code: 'VALIDATION', details: { field: 'skip' } })

  t.same(await service.bulkPut(a, { tag: 'absent' }, { n: 9 }, { upsert: false }), { numAffected: 0 })
  t.equal(await app.svc.db.collection(service.model.collection).countDocuments({ tag: 'absent' }), 0, 'no upsert')

  results.length = 0
  t.same(await service.deleteMany(a, { n: { $lte: 2 } }), { numAffected: 2 })
  t.equal(
    await app.svc.db.collection(service.model.collection).countDocuments({ userId: b.identity.userId }),
    1,
    'b keeps its record'
  )
  t.equal(results.length, 1, 'one bulk result')
  t.match(results[0], { action: 'deleted', numAffected: 2, filter: { n: { $lte: 2 } } })
  t.same(
    results[0].records.map((r: any) => [r.before.n, r.after]).sort(),
    [
      [1, null],
      [2, null]
    ],
    'removal images (no soft delete here)'
  )
  t.equal(purged.length, 2, 'removed records go to the purge hooks')
  t.same(calls, [], 'no hooks fired')
})

t.test('deleteMany refuses a filter matching more than the bulk bound', async (t) => {
  const app = await buildCoreApp(t, { schemas: [{ path: 'many', fields: [{ name: 'n', type: Number }] }] })
  const service = app.svc.services.get('many')
  const ctx: any = {
    identity: { kind: 'user', userId: '65f0000000000000000000a1', roles: ['user'] },
    surface: 'graphql'
  }
  await app.svc.db.collection(service.model.collection).insertMany(
    Array.from({ length: 1001 }, (_, n) => ({
      n,
      userId: ctx.identity.userId,
      createdAt: new Date(),
      updatedAt: new Date()
    }))
  )
  await t.rejects(service.deleteMany(ctx, {}), { code: 'VALIDATION', details: { field: 'filter' } })
  t.equal(await app.svc.db.collection(service.model.collection).countDocuments({}), 1001, 'nothing deleted')
  await t.rejects(
    service.createMany(
      ctx,
      Array.from({ length: 1001 }, () => ({ n: 1 }))
    ),
    { code: 'VALIDATION' }
  )
})
