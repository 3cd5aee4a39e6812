import type { Collection, Db } from 'mongodb'
import { insertIgnoringDuplicates } from '../jobs/insert-once.js'

export const DELIVERIES_COLLECTION = 'webhook_deliveries'

/** One attempt (CONTRACT "Attempts"); never purged automatically (spec). */
export interface DeliveryRow {
  /** `<deliveryId>:<attempt>`: a re-recorded attempt (lease lost mid-write) stays one row. */
  _id: string
  subscriptionId: string
  deliveryId: string
  event: string
  attempt: number
  status: 'success' | 'failure'
  responseCode: number | null
  durationMs: number
  error: string | null
  at: Date
}

export class DeliveriesLog {
  readonly col: Collection<DeliveryRow>

  constructor (db: Db) {
    this.col = db.collection<DeliveryRow>(DELIVERIES_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.col.createIndex({ subscriptionId: 1, at: -1 })
  }

  /** One insert per batch; a row already written (an attempt re-run after a lost lease) is kept as it was. */
  async record (rows: DeliveryRow[]): Promise<void> {
    await insertIgnoringDuplicates(this.col, rows)
  }

  /** Newest first. The caller has checked the subscription is the tenant's. */
  async page (subscriptionId: string, skip: number, limit: number): Promise<{ rows: DeliveryRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.col.find({ subscriptionId }).sort({ at: -1, attempt: -1 }).skip(skip).limit(limit).toArray(),
      this.col.countDocuments({ subscriptionId })
    ])
    return { rows, total }
  }
}
