import type { Collection, Document, UpdateResult } from 'mongodb'
import { toJson } from '../values/convert.js'
import type { RecordJson } from './types.js'

/**
 * Bulk update that also reports each record's before/after image, for write subscribers that
 * need them (audit writes one row per record). Costs a pre-read and a post-read; only used when
 * a plugin asked for it (`ResourceService.wantBulkRecords()`).
 *
 * The update is pinned to the pre-read ids so a record inserted meanwhile is not changed without
 * an image; a post-image counts only when it carries this write's `updatedAt` (another writer
 * may have changed a pre-read record so that it no longer matched).
 */
export async function updateManyWithImages (collection: Collection, filter: Document, update: Document, opts: { upsert: boolean, stamp: Date }):
Promise<{ res: UpdateResult, records: Array<{ before: RecordJson, after: RecordJson }> }> {
  const before = await collection.find(filter).toArray()
  if (before.length === 0) return { res: await collection.updateMany(filter, update, { upsert: opts.upsert }), records: [] }
  const ids = before.map((d) => d._id)
  const res = await collection.updateMany({ $and: [filter, { _id: { $in: ids } }] }, update)
  const after = await collection.find({ _id: { $in: ids } }).toArray()
  const byId = new Map(after.map((d) => [String(d._id), d]))
  const records: Array<{ before: RecordJson, after: RecordJson }> = []
  for (const b of before) {
    const a = byId.get(String(b._id))
    if (a != null && a.updatedAt instanceof Date && a.updatedAt.getTime() === opts.stamp.getTime()) {
      records.push({ before: toJson<RecordJson>(b), after: toJson<RecordJson>(a) })
    }
  }
  return { res, records }
}
