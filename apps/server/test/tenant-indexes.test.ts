import { fileURLToPath } from 'node:url'
import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'

// Issue 27, sharding by tenant, on the whole reference composition (core's own test sees core's
// indexes only): every index any plugin creates on a record collection of the shipped schemas
// starts with `userId`, but the exceptions the root README names ("Sharding by tenant").
const SCHEMA_DIR = fileURLToPath(new URL('../../../schema', import.meta.url))
const EXCEPTIONS = new Set(['_id_', 'svc_softdelete_deleted_at'])

t.test('every index on a record collection of the reference server starts with userId', async (t) => {
  // A retention period makes soft delete build its sweep's index too (the cross-tenant exception).
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'tenant-indexes-secret-0123456789',
    SCHEMA_DIR,
    SOFT_DELETE_RETENTION_DAYS: '30'
  })
  const { db } = await getTestDb(t)
  const app = await buildServer(config!, { db, logger: false })
  t.teardown(async () => await app.close())
  await app.ready()
  const seen: string[] = []
  for (const collection of new Set(app.svc.registry.all().map((m) => m.collection))) {
    for (const ix of await db.collection(collection).indexes()) {
      const name = String(ix.name)
      seen.push(`${collection}.${name}`)
      if (EXCEPTIONS.has(name) || ix.key._fts === 'text') continue
      t.equal(Object.keys(ix.key)[0], 'userId', `${collection}.${name} ${JSON.stringify(ix.key)} starts with userId`)
    }
  }
  for (const expected of [
    'contacts.svc_softdelete_live_created_id',
    'contacts.svc_softdelete_deleted_at',
    'contacts.svc_fk_companyId',
    'companies.svc_unique_userId_name'
  ]) {
    t.ok(seen.includes(expected), `${expected} exists and was looked at`)
  }
})
