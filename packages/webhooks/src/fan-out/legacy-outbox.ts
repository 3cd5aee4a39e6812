import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { FanOutEvent } from './fan-out.js'

/** The private outbox of @svc/webhooks before core's event log; only read now, to drain what an older version left. */
export const OUTBOX_COLLECTION = 'webhook_outbox'
/** How often a worker looks for rows an older instance still writes during a rolling upgrade. */
export const LEGACY_DRAIN_MS = 60_000

/** A row as the older version stored it (its event id in both `_id` and `id`). */
interface OutboxRow extends FanOutEvent {
  _id: string
  dueAt: Date
  lease?: string
}

/**
 * Rows an older version left in `webhook_outbox`: claimed in leased batches (a row goes to one
 * worker), fanned out like log events (the same event id, so jobs are not doubled), then
 * removed. Runs when a worker starts and every minute, so a rolling upgrade loses nothing.
 */
export class LegacyOutbox {
  readonly #rows: Collection<OutboxRow>
  readonly #leaseMs: number

  constructor (db: Db, leaseMs: number) {
    this.#rows = db.collection<OutboxRow>(OUTBOX_COLLECTION)
    this.#leaseMs = leaseMs
  }

  async drain (fan: (events: FanOutEvent[]) => Promise<unknown>, batch = 200): Promise<number> {
    let total = 0
    for (;;) {
      const now = new Date()
      const due = { dueAt: { $lte: now } }
      const ids = (
        await this.#rows.find(due, { projection: { _id: 1 }, sort: { dueAt: 1 }, limit: batch }).toArray()
      ).map((r) => r._id)
      if (ids.length === 0) return total
      const lease = randomUUID()
      await this.#rows.updateMany(
        { ...due, _id: { $in: ids } },
        { $set: { dueAt: new Date(now.getTime() + this.#leaseMs), lease } }
      )
      const rows = await this.#rows.find({ _id: { $in: ids }, lease }).toArray()
      await fan(rows)
      await this.#rows.deleteMany({ _id: { $in: rows.map((r) => r._id) }, lease })
      total += rows.length
    }
  }
}
