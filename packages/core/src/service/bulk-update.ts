import type { Collection, Document, UpdateResult } from 'mongodb'
import { toJson } from '../values/convert.js'
import type { RecordJson } from './types.js'

export interface BulkUpdateOptions {
  upsert: boolean
  /** This write's `updatedAt`: a post-image counts only when it carries it. */
  stamp: Date
  maxTimeMS: number
  /** Report each record's before/after image (a plugin called `wantBulkRecords()`), at the cost of full reads. */
  images: boolean
}

/**
 * Bulk update in two steps: the caller's filter is evaluated by a read bounded by `maxTimeMS`,
 * then the update is pinned to the ids it found. A slow filter therefore times out before
 * anything is written (a multi-update stopped by its time bound would leave some records
 * changed), and a record inserted meanwhile is never changed without being seen.
 *
 * With `images`, each record's before/after image is returned for write subscribers (audit
 * writes one row per record); a post-image counts only when it carries this write's
 * `updatedAt` (another writer may have changed a pre-read record so it no longer matched).
 */
export async function updateMatching (collection: Collection, filter: Document, update: Document, opts: BulkUpdateOptions):
Promise<{ res: UpdateResult, records?: Array<{ before: RecordJson, after: RecordJson }> }> {
  const { maxTimeMS } = opts
  const before = await collection.find(filter, { maxTimeMS, ...(opts.images ? {} : { projection: { _id: 1 } }) }).toArray()
  // Nothing matched within the bound: an upsert inserts at most one record, it cannot half-apply.
  if (before.length === 0) return { res: await collection.updateMany(filter, update, { upsert: opts.upsert, maxTimeMS }), ...(opts.images ? { records: [] } : {}) }
  const ids = before.map((d) => d._id)
  const res = await collection.updateMany({ $and: [filter, { _id: { $in: ids } }] }, update)
  if (!opts.images) return { res }
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
