import type { Collection, Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { AuditRow } from '../types.js'

export const AUDIT_COLLECTION = 'audit_log'
export const FAILURES_COLLECTION = 'audit_failures'

interface FailureRow {
  _id: AuditRow['_id']
  row: AuditRow
  error: string
  failedAt: Date
}

/**
 * Writes audit rows. No transaction (a standalone mongod and devdb refuse them, and an audit
 * outage must not fail the record write that already happened): a row that cannot be inserted
 * is parked in `audit_failures` (an outbox) and moved later by `retryFailures()`; if even that
 * fails, an error log line carries the row's identity (never its data) so the write is reported.
 */
export class AuditStore {
  readonly log: Collection<AuditRow>
  readonly failures: Collection<FailureRow>

  constructor (db: Db) {
    this.log = db.collection<AuditRow>(AUDIT_COLLECTION)
    this.failures = db.collection<FailureRow>(FAILURES_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    // History: one tenant's record, newest first; `_id` breaks ties between rows of one millisecond.
    await this.log.createIndex({ userId: 1, path: 1, recordId: 1, at: -1, _id: -1 }, { name: 'audit_history' })
  }

  async write (rows: AuditRow[], log: FastifyBaseLogger): Promise<void> {
    if (rows.length === 0) return
    try {
      await this.log.insertMany(rows, { ordered: true })
      return
    } catch (err) {
      // Some rows of an ordered batch may have landed; park only the missing ones.
      const present = new Set((await this.log.find({ _id: { $in: rows.map((r) => r._id) } }, { projection: { _id: 1 } }).toArray().catch(() => [])).map((r) => String(r._id)))
      const missing = rows.filter((r) => !present.has(String(r._id)))
      const ids = missing.map(identify)
      try {
        await this.failures.insertMany(missing.map((row) => ({ _id: row._id, row, error: (err as Error).message, failedAt: new Date() })))
        log.error({ err, rows: ids }, 'audit rows not written; parked in audit_failures for retry')
      } catch (err2) {
        log.error({ err, outboxErr: err2, rows: ids }, 'audit rows lost: audit_log and audit_failures both refused them')
      }
    }
  }

  /** Idempotent by `_id`: a row already in `audit_log` (another replica moved it) just leaves the outbox. */
  async retryFailures (log: FastifyBaseLogger, batch = 100): Promise<{ moved: number, remaining: number }> {
    let moved = 0
    for (const f of await this.failures.find({}, { sort: { failedAt: 1 }, limit: batch }).toArray()) {
      try {
        await this.log.insertOne(f.row)
      } catch (err) {
        const already = await this.log.countDocuments({ _id: f.row._id }) > 0
        if (!already) {
          log.warn({ err, row: identify(f.row) }, 'audit row retry failed')
          continue
        }
      }
      await this.failures.deleteOne({ _id: f._id })
      moved++
    }
    return { moved, remaining: await this.failures.countDocuments() }
  }
}

function identify (row: AuditRow): Record<string, unknown> {
  return { _id: String(row._id), action: row.action, path: row.path, recordId: row.recordId, requestId: row.requestId }
}
