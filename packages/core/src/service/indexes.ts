import type { Db } from 'mongodb'
import type { Registry } from '../schema/registry.js'
import { SchemaError } from '../schema/schema-error.js'
import { searchablePaths } from './search.js'
import { ensureTextIndex } from './search-index.js'
import { ensureIdempotencyIndexes } from './idempotency.js'
import { IntentStore } from './durable/intents.js'

/**
 * Creates each schema's `compositeIndex` entries as unique indexes, plus the tenant index every
 * default list uses. Idempotent: an existing index with the same spec is a no-op.
 */
export async function ensureIndexes (db: Db, registry: Registry): Promise<void> {
  // Two versions of a schema may serve one collection: its one text index covers both's fields
  // (built once, not replaced by each in turn at every start).
  const searchableIn = new Map<string, string[]>()
  for (const model of registry.all()) {
    const paths = searchableIn.get(model.collection) ?? []
    searchableIn.set(model.collection, [...paths, ...searchablePaths(model).filter((p) => !paths.includes(p))])
  }
  for (const model of registry.all()) {
    const coll = db.collection(model.collection)
    // The default list order with its `_id` tiebreak, so a list page and a cursor walk read the
    // index in order from their position instead of sorting the tenant's records.
    await coll.createIndex({ userId: 1, createdAt: -1, _id: -1 }, { name: 'svc_tenant_created_id' })
    // Its predecessor (without `_id`) is a prefix of it: only a cost on every write now.
    await coll.dropIndex('svc_tenant_created').catch(() => undefined)
    const searchable = searchableIn.get(model.collection)!
    if (searchable.length > 0 && searchablePaths(model).length > 0) await ensureTextIndex(coll, model, searchable)
    for (const [i, spec] of model.compositeIndexes.entries()) {
      try {
        await coll.createIndex(spec, { unique: true, name: `svc_unique_${Object.keys(spec).join('_')}` })
      } catch (err) {
        // Typically existing duplicates; name the schema so the operator knows what to clean up.
        throw new SchemaError(
          model.source,
          `compositeIndex[${i}]`,
          `cannot create the unique index: ${(err as Error).message}`
        )
      }
    }
  }
  for (const model of registry.all()) {
    for (const r of Object.values(model.relations)) {
      if (r.kind === 'belongsTo') continue // the target's _id index serves it
      // hasOne/hasMany includes look the page's ids up in the target's fk: without an index each is a scan.
      const target = registry.get(model.version, r.target)
      if (target !== undefined) {
        await db.collection(target.collection).createIndex({ userId: 1, [r.fk]: 1 }, { name: `svc_fk_${r.fk}` })
      }
    }
  }
  await ensureIdempotencyIndexes(db)
  await new IntentStore(db).ensureIndexes()
}
