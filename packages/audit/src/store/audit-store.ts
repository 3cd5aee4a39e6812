import type { Collection, Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { AuditRow } from '../types.js'

export const AUDIT_COLLECTION = 'audit_log'
/** The outbox of earlier versions (rows whose insert failed); only read to migrate them. */
const PARKED_COLLECTION = 'audit_failures'

/**
 * The `audit_log` collection. Rows are written by core's durable effects (see index.ts), not
 * here: this store creates the history index, reads history and migrates old parked rows.
 */
export class AuditStore {
  readonly log: Collection<AuditRow>
  readonly #parked: Collection<{ _id: AuditRow['_id']; row: AuditRow }>

  constructor (db: Db) {
    this.log = db.collection<AuditRow>(AUDIT_COLLECTION)
    this.#parked = db.collection(PARKED_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    // History: one tenant's record, newest first; `_id` breaks ties between rows of one millisecond.
    await this.log.createIndex({ userId: 1, path: 1, recordId: 1, at: -1, _id: -1 }, { name: 'audit_history' })
  }

  /**
   * Rows an earlier version parked in `audit_failures` move to `audit_log` once, at start-up
   * (idempotent by `_id`, safe on several replicas); a row that still cannot be written stays.
   */
  async migrateParkedRows (log: FastifyBaseLogger): Promise<number> {
    let moved = 0
    for (const p of await this.#parked.find({}).toArray()) {
      try {
        await this.log.insertOne(p.row)
      } catch (err) {
        if ((await this.log.countDocuments({ _id: p.row._id })) === 0) {
          log.warn({ err, rowId: String(p._id) }, 'parked audit row not migrated')
          continue
        }
      }
      await this.#parked.deleteOne({ _id: p._id })
      moved++
    }
    if (moved > 0) log.info({ moved }, 'parked audit rows migrated to audit_log')
    return moved
  }
}
