import type { Collection, Document } from 'mongodb'
import type { ResourceModel } from '../schema/model.js'
import { SchemaError } from '../schema/schema-error.js'

const NAME = 'svc_text'
// mongod: IndexOptionsConflict, IndexKeySpecsConflict, and "only one text index per collection".
const CONFLICTS = new Set([85, 86, 67])

/**
 * The one text index per collection over the schema's `searchable` fields. When the declared
 * fields changed since the last start, the old text index is replaced (a schema edit must not
 * leave `q` searching yesterday's fields, nor stop start-up).
 */
export async function ensureTextIndex (coll: Collection, model: ResourceModel, paths: string[]): Promise<void> {
  const key: Document = Object.fromEntries(paths.map((p) => [p, 'text']))
  try {
    await coll.createIndex(key, { name: NAME, default_language: 'english' })
    return
  } catch (err) {
    if (!CONFLICTS.has((err as { code?: number }).code ?? -1)) {
      throw new SchemaError(
        model.source,
        'fields.searchable',
        `cannot create the text index: ${(err as Error).message}`
      )
    }
  }
  const existing = await coll.listIndexes().toArray()
  for (const ix of existing) {
    if (ix.key?._fts === 'text') await coll.dropIndex(ix.name as string)
  }
  try {
    await coll.createIndex(key, { name: NAME, default_language: 'english' })
  } catch (err) {
    throw new SchemaError(model.source, 'fields.searchable', `cannot create the text index: ${(err as Error).message}`)
  }
}
