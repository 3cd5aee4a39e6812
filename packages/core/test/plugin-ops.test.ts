import t from 'tap'
import { ObjectId } from 'mongodb'
import { buildCoreApp } from './helper.js'

// The named operations plugins get instead of a record collection (soft delete's sweep and index,
// the blob route, the files reconciler): trusted internal calls only, each with its own rule.
const SYSTEM: any = { identity: null, surface: 'system', system: true }
const user = (userId: string): any => ({ identity: { kind: 'user', userId, roles: ['user'] }, surface: 'rest' })
const a = user('65f0000000000000000000a1')
const schemas = [
  {
    path: 'docs',
    fields: [
      { name: 'title', type: String },
      { name: 'scan', type: 'File' }
    ]
  }
]

t.test('a caller context is refused by every plugin operation', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('docs')
  const id = new ObjectId()
  await t.rejects(service.purgeDeletedBefore(a, new Date(), { batchSize: 10 }), { code: 'FORBIDDEN' })
  await t.rejects(service.ensureIndex(a, { title: 1 }, { name: 'x' }), { code: 'FORBIDDEN' })
  await t.rejects(service.fileNamingKey(a, id, 'scan', 'k'), { code: 'FORBIDDEN' })
  await t.rejects(service.fileKeysOf(a, [id], 'scan'), { code: 'FORBIDDEN' })
  await t.rejects(service.fileKeysOf(SYSTEM, [id], 'title'), { code: 'VALIDATION' }, 'not a file field')
  t.notOk('collection' in service, 'no collection is handed out')
})

t.test('purgeDeletedBefore removes old tombstones in batches and runs the purge hooks', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('docs')
  const raw = app.svc.db.collection(service.model.collection)
  const old = new Date(Date.now() - 86_400_000)
  const purged: unknown[] = []
  service.onPurge(({ docs }) => {
    purged.push(...docs)
  })
  await raw.insertMany([
    ...Array.from({ length: 5 }, (_, n) => ({ title: `old ${n}`, userId: a.identity.userId, deletedAt: old })),
    { title: 'recent', userId: a.identity.userId, deletedAt: new Date() },
    { title: 'live', userId: a.identity.userId }
  ])
  t.equal(await service.purgeDeletedBefore(SYSTEM, new Date(Date.now() - 3_600_000), { batchSize: 2 }), 5)
  t.equal(purged.length, 5, 'each purged row went to the hooks once')
  t.same((await raw.find({}).toArray()).map((d) => d.title).sort(), ['live', 'recent'])
  await service.ensureIndex(SYSTEM, { deletedAt: 1 }, { sparse: true, name: 'deleted_at' })
  await service.ensureIndex(SYSTEM, { deletedAt: 1 }, { sparse: true, name: 'deleted_at' })
  t.ok(
    (await raw.indexes()).some((i) => i.name === 'deleted_at'),
    'index created once, second call a no-op'
  )
})

t.test('file lookups by blob key: the live record naming the key, and every key named', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const service = app.svc.services.get('docs')
  const raw = app.svc.db.collection(service.model.collection)
  const meta = (key: string): any => ({ key, contentType: 'text/plain', originalName: 'a.txt', size: 1 })
  const live = new ObjectId()
  const tomb = new ObjectId()
  await raw.insertMany([
    { _id: live, userId: a.identity.userId, scan: meta('k-live') },
    { _id: tomb, userId: a.identity.userId, scan: meta('k-tomb'), deletedAt: new Date() }
  ])
  service.addScope(() => ({ deletedAt: null }))
  t.match(await service.fileNamingKey(SYSTEM, live, 'scan', 'k-live'), { key: 'k-live' })
  t.equal(await service.fileNamingKey(SYSTEM, live, 'scan', 'k-other'), null, 'a replaced key is not served')
  t.equal(await service.fileNamingKey(SYSTEM, tomb, 'scan', 'k-tomb'), null, 'scopes apply: a tombstone serves nothing')
  t.same(
    [...(await service.fileKeysOf(SYSTEM, [live, tomb, new ObjectId()], 'scan'))].sort(),
    ['k-live', 'k-tomb'],
    'a tombstone still owns its blob'
  )
})
