import t from 'tap'
import { buildCoreApp } from './helper.js'

const schemas = [
  {
    path: 'items',
    fields: [
      { name: 'n', type: Number },
      { name: 'parentId', type: String }
    ],
    relations: { parent: { belongsTo: 'items', fk: 'parentId' } }
  }
]

t.test('findMany: offset paging without a count, tenant-scoped, limit bounded', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('items')
  const ctx = (userId: string): any => ({ identity: { kind: 'user', userId, roles: ['user'] }, surface: 'graphql' })
  const a = ctx('65f0000000000000000000a1')
  const first = await service.create(a, { n: 0 })
  for (let n = 1; n < 5; n++) await service.create(a, { n, parentId: first._id })
  await service.create(ctx('65f0000000000000000000b2'), { n: 99 })

  t.same(
    (await service.findMany(a, { sort: 'n:asc', skip: 1, limit: 2 })).map((r) => r.n),
    [1, 2]
  )
  t.same(
    (await service.findMany(a, { filter: { n: { $gte: 3 } }, sort: 'n:desc' })).map((r) => r.n),
    [4, 3]
  )
  const withParent = await service.findMany(a, { sort: 'n:asc', include: 'parent', limit: 2 })
  t.same(
    withParent.map((r) => (r.parent as { n?: number } | null)?.n ?? null),
    [null, 0],
    'includes populate as on list'
  )
  t.equal((await service.findMany(a)).length, 5, "the other tenant's record is not there")
  for (const [query, field] of [
    [{ limit: 201 }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ skip: -1 }, 'skip'],
    [{ skip: 1.5 }, 'skip']
  ] as const) {
    await t.rejects(service.findMany(a, query), { code: 'VALIDATION', details: { field } }, JSON.stringify(query))
  }
})
