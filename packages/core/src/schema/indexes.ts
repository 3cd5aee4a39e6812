import type { Db } from 'mongodb'
import type { Registry } from './registry.js'

/**
 * Creates each schema's `compositeIndex` entries as unique indexes, plus the tenant index every
 * default list uses. Idempotent: an existing index with the same spec is a no-op.
 */
export async function ensureIndexes (db: Db, registry: Registry): Promise<void> {
  for (const model of registry.all()) {
    const coll = db.collection(model.collection)
    await coll.createIndex({ userId: 1, createdAt: -1 }, { name: 'svc_tenant_created' })
    for (const spec of model.compositeIndexes) {
      await coll.createIndex(spec, { unique: true, name: `svc_unique_${Object.keys(spec).join('_')}` })
    }
  }
}
