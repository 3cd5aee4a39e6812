import t from 'tap'
import { buildCoreApp } from './helper.js'
import { makeRelationSchemas } from './fixtures/relation-schemas.js'

// Issue 27, sharding by tenant: every index svc creates on a record collection starts with
// `userId`, so `{ userId: 1, _id: 1 }` (or `{ userId: 1 }`) can shard it and each query of a
// tenant is routed to one shard. Exceptions, each with its reason (README "Sharding by tenant"):
// `_id_` (MongoDB's own), the text index (a compound text index would make every `$text` query
// name one tenant, and api clients without an owner read across tenants).
const EXCEPTIONS = new Set(['_id_', 'svc_text'])

t.test('indexes on record collections start with userId', async (t) => {
  const schemas = makeRelationSchemas()
  // A declared unique index, written tenant-first as the README asks.
  schemas[1].compositeIndex = [{ userId: 1, name: 1 }]
  const app = await buildCoreApp(t, { schemas })
  const checked: string[] = []
  for (const model of app.svc.registry.all()) {
    const indexes = await app.svc.db.collection(model.collection).indexes()
    for (const ix of indexes) {
      const name = String(ix.name)
      if (EXCEPTIONS.has(name) || ix.key._fts === 'text') continue
      checked.push(`${model.collection}.${name}`)
      t.equal(
        Object.keys(ix.key)[0],
        'userId',
        `${model.collection}.${name} ${JSON.stringify(ix.key)} starts with userId`
      )
    }
  }
  for (const expected of [
    'companies.svc_tenant_created_id',
    'contacts.svc_fk_companyId',
    'deals.svc_fk_companyId',
    'contacts.svc_unique_userId_name'
  ]) {
    t.ok(checked.includes(expected), `${expected} was checked`)
  }
})
