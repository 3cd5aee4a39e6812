import type { Collection, Db, Document } from 'mongodb'

/** Existing duplicates of an index spec, per tenant (see StoredRecords.duplicates). */
export interface DuplicateGroups {
  groups: number
  records: number
  tenants: number
  example?: { key: Record<string, unknown>; count: number }
}

/** The estimated record count of any collection (a resource's previous collection, one no schema serves). */
export async function estimateCollection (db: Db, name: string): Promise<number> {
  return await db.collection(name).estimatedDocumentCount()
}

/**
 * Operator reads of one schema's stored records, for `svc schema plan` (`service.stored`):
 * counts, samples and scans across tenants, bounded in time. Never a caller's path: nothing
 * here is tenant-scoped or projected, and nothing writes.
 */
export class StoredRecords {
  readonly #coll: Collection

  constructor (collection: Collection) {
    this.#coll = collection
  }

  /** From the collection's metadata: O(1), may lag after an unclean shutdown. */
  async estimate (): Promise<number> {
    return await this.#coll.estimatedDocumentCount()
  }

  /** `size` records picked at random (`$sample`), or every record when there are at most `size`. */
  async sample (size: number, total: number, maxTimeMS: number): Promise<Document[]> {
    if (total <= size) return await this.#coll.find({}, { maxTimeMS }).toArray()
    return await this.#coll.aggregate([{ $sample: { size } }], { maxTimeMS }).toArray()
  }

  /**
   * Every record, in batches of `batchSize`, until `deadline` (ms since the epoch): answers how
   * many were read and whether the deadline cut the scan short. One batch in memory at a time.
   */
  async scan (
    onBatch: (docs: Document[]) => Promise<void> | void,
    opts: { batchSize: number; deadline: number }
  ): Promise<{ scanned: number; partial: boolean }> {
    const cursor = this.#coll.find({}, { batchSize: opts.batchSize })
    let batch: Document[] = []
    let scanned = 0
    try {
      for await (const doc of cursor) {
        batch.push(doc)
        if (batch.length < opts.batchSize) continue
        await onBatch(batch)
        scanned += batch.length
        batch = []
        if (Date.now() >= opts.deadline) return { scanned, partial: true }
      }
      if (batch.length > 0) await onBatch(batch)
      return { scanned: scanned + batch.length, partial: false }
    } finally {
      await cursor.close()
    }
  }

  /** The records among `ids` a migration filter selects (filters are evaluated by the database). */
  async matching (ids: unknown[], filter: Document): Promise<Set<string>> {
    const docs = await this.#coll.find({ $and: [{ _id: { $in: ids } }, filter] }, { projection: { _id: 1 } }).toArray()
    return new Set(docs.map((d) => String(d._id)))
  }

  /** Stored tombstones (`deletedAt` set), and their tenants: live records once soft delete is turned off. */
  async tombstones (maxTimeMS: number): Promise<{ records: number; tenants: number }> {
    const [out] = await this.#coll
      .aggregate(
        [
          { $match: { deletedAt: { $ne: null } } },
          { $group: { _id: '$userId', n: { $sum: 1 } } },
          { $group: { _id: null, records: { $sum: '$n' }, tenants: { $sum: 1 } } }
        ],
        { maxTimeMS }
      )
      .toArray()
    return { records: out?.records ?? 0, tenants: out?.tenants ?? 0 }
  }

  /** Records matching `filter` (exactly, bounded by `maxTimeMS`). */
  async count (filter: Document, maxTimeMS: number): Promise<number> {
    return await this.#coll.countDocuments(filter, { maxTimeMS })
  }

  /** The tenants (`userId`) having records that match `filter`, sorted; `null` for records without one. */
  async tenants (filter: Document): Promise<Array<string | null>> {
    const ids = (await this.#coll.distinct('userId', filter)).filter((v): v is string => typeof v === 'string').sort()
    const orphans = await this.#coll.countDocuments(
      { $and: [filter, { userId: { $not: { $type: 'string' } } }] },
      { limit: 1 }
    )
    return orphans > 0 ? [...ids, null] : ids
  }

  /** The `{ userId, _id }` index a migration walks each tenant's records by (kept afterwards). */
  async ensureTenantOrder (): Promise<void> {
    await this.#coll.createIndex({ userId: 1, _id: 1 }, { name: 'svc_tenant_id' })
  }

  /**
   * Groups of records sharing one value of `spec`'s keys — what a unique index on it would refuse
   * (a missing key counts as null, as in the index). Counted per tenant when the spec starts with
   * `userId` or `accountId` (svc's per-tenant uniqueness). Throws the driver's MaxTimeMSExpired
   * past `maxTimeMS`.
   */
  async duplicates (spec: Record<string, 1 | -1>, maxTimeMS: number): Promise<DuplicateGroups> {
    const keys = Object.keys(spec)
    const id = Object.fromEntries(keys.map((k, i) => [`k${i}`, `$${k}`]))
    const tenant = keys[0] === 'userId' || keys[0] === 'accountId' ? '$_id.k0' : null
    const [out] = await this.#coll
      .aggregate(
        [
          { $group: { _id: id, n: { $sum: 1 } } },
          { $match: { n: { $gt: 1 } } },
          // Field paths, not an object literal, under $first: @svc/devdb reads `$first: { … }` as the array operator.
          {
            $group: {
              _id: tenant,
              groups: { $sum: 1 },
              records: { $sum: '$n' },
              key: { $first: '$_id' },
              count: { $first: '$n' }
            }
          },
          {
            $group: {
              _id: null,
              tenants: { $sum: 1 },
              groups: { $sum: '$groups' },
              records: { $sum: '$records' },
              key: { $first: '$key' },
              count: { $first: '$count' }
            }
          }
        ],
        { maxTimeMS, allowDiskUse: true }
      )
      .toArray()
    if (out === undefined) return { groups: 0, records: 0, tenants: 0 }
    const key = Object.fromEntries(keys.map((k, i) => [k, (out.key as Document)[`k${i}`] ?? null]))
    return { groups: out.groups, records: out.records, tenants: out.tenants, example: { key, count: out.count } }
  }
}
