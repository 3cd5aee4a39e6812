import type { Collection, Db, Document } from 'mongodb'
import { isDuplicateKey } from '../durable/effect-docs.js'

export const LEASES_COLLECTION = 'svc_leases'

export interface LeaseDoc extends Document {
  _id: string
  holder: string
  until: Date
}

/**
 * A named lease any process may hold, one at a time: `{ _id: name, holder, until }` in
 * `svc_leases`. Expiry is judged by the database's clock (`$$NOW`), so clock skew between hosts
 * cannot let a taker in early; the holder keeps a conservative deadline of its own (the lease's
 * length from *before* it asked), so it stops working before the database would let a taker in.
 */
export class Lease {
  readonly name: string
  readonly holder: string
  readonly ttlMs: number
  readonly coll: Collection<LeaseDoc>
  #validUntil = 0

  constructor (db: Db, name: string, holder: string, ttlMs: number) {
    this.coll = db.collection<LeaseDoc>(LEASES_COLLECTION)
    this.name = name
    this.holder = holder
    this.ttlMs = ttlMs
  }

  /** Takes the lease when free or expired, renews it when ours; answers whether we hold it now. */
  async acquire (): Promise<boolean> {
    const asked = performance.now()
    try {
      const doc = await this.coll.findOneAndUpdate(
        { _id: this.name, $expr: { $or: [{ $eq: ['$holder', this.holder] }, { $lt: ['$until', '$$NOW'] }] } },
        [{ $set: { holder: this.holder, until: { $add: ['$$NOW', this.ttlMs] } } }],
        { upsert: true, returnDocument: 'after' }
      )
      if (doc?.holder !== this.holder) return this.forget()
      this.#validUntil = asked + this.ttlMs
      return true
    } catch (err) {
      // Held by another: the filter missed and the upsert collided with its document.
      if (isDuplicateKey(err)) return this.forget()
      throw err
    }
  }

  /** Stop trusting our deadline (the database showed another holder): the next use must acquire again. */
  forget (): false {
    this.#validUntil = 0
    return false
  }

  /** Ours by our own clock, with `marginMs` to spare (work that must finish before the lease ends). */
  held (marginMs = 0): boolean {
    return performance.now() + marginMs < this.#validUntil
  }

  /** Gives the lease up at once (a clean shutdown), so another process need not wait it out. */
  async release (): Promise<void> {
    this.#validUntil = 0
    await this.coll.updateOne({ _id: this.name, holder: this.holder }, { $set: { until: new Date(0) } })
  }
}
