import type { AnyBulkWriteOperation, AnyClientBulkWriteModel, ClientSession, Db, Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { isDuplicateKey } from '../durable/effect-docs.js'
import { bulkWriteSupported, namespaceOf, unwrapBulkWriteError } from '../durable/one-command.js'
import { hasLabel, TRANSIENT, UNKNOWN_COMMIT } from '../durable/transaction.js'
import type { EventDoc } from './event-doc.js'
import type { EventStore } from './event-store.js'
import { Lease, type LeaseDoc } from './lease.js'
import { Pump } from './pump.js'
import { sweepEvents } from './retention.js'

export const SEQUENCER_LEASE = 'svc_events.sequencer'
/** Writes arriving while a batch is stamped wait this long for the next one, so they share it. */
export const BURST_GAP_MS = 10

/** The sequencer's lease document also carries the last `seq` handed out and the sweep's mark. */
export interface SequencerDoc extends LeaseDoc {
  seq?: number
  /** Every event with a `seq` up to this one may have been removed by the retention sweep. */
  swept?: number
}

export interface SequencerDeps {
  db: Db
  store: EventStore
  holder: string
  leaseMs: number
  /** Fence each batch with a transaction that also writes the lease (replica set, mongos). */
  transactions: boolean
  batchSize: number
  pollMs: number
  sweepIntervalMs: number
  /** The longest retention any consumer asked for. */
  retainMs: () => number
  log: FastifyBaseLogger
  /** Called after a batch was stamped, with the counter (wakes this process's follower). */
  stamped: (head: number) => void
}

/**
 * Stamps a gap-free, increasing `seq` on committed events in the order it finds them, one
 * process at a time (a lease any instance may take, renewed while held). Fencing: with
 * transactions each batch commits together with a guarded update of the lease document (a
 * takeover conflicts with it, one side aborts); without, the holder stamps only while a third
 * of its lease is left, and a taker waits until it has ended by the database's clock. Either
 * way the unique index on `seq` makes a double stamp fail loudly. The holder also sweeps.
 */
export class Sequencer {
  readonly lease: Lease
  readonly pump: Pump
  readonly #d: SequencerDeps
  /** The last `seq` handed out; null while this process does not lead. */
  #counter: number | null = null
  #nextTry = 0
  #nextSweep = 0

  constructor (deps: SequencerDeps) {
    this.#d = deps
    this.lease = new Lease(deps.db, SEQUENCER_LEASE, deps.holder, deps.leaseMs)
    this.pump = new Pump('event sequencer', async () => await this.step(), deps.pollMs, deps.log, BURST_GAP_MS)
  }

  get leading (): boolean {
    return this.#counter !== null
  }

  /** One round: lead (or try to), stamp a batch, sweep when due. True when more is pending. */
  async step (): Promise<boolean> {
    if (!(await this.#lead())) return false
    const n = this.#d.transactions ? await this.#stampInTransaction() : await this.#stampPlain()
    if (n > 0 && this.#counter !== null) this.#d.stamped(this.#counter)
    if (n < this.#d.batchSize && Date.now() >= this.#nextSweep && this.#counter !== null) {
      await this.#sweep(this.#counter)
    }
    return n === this.#d.batchSize
  }

  /** Renews once a third of the lease has passed; a follower asks for it at that pace too. */
  async #lead (): Promise<boolean> {
    const { lease } = this
    if (this.#counter !== null && lease.held((lease.ttlMs * 2) / 3)) return true
    if (this.#counter === null && performance.now() < this.#nextTry) return false
    this.#nextTry = performance.now() + lease.ttlMs / 3
    if (!(await lease.acquire())) return this.#resign('lost the event sequencer lease')
    if (this.#counter === null) {
      this.#counter = await this.#recover()
      this.#d.log.info({ seq: this.#counter }, 'leads the event sequencer')
    }
    return this.#counter !== null
  }

  /** Stops leading; `retryNow` when the lease may still be ours (a batch aborted), so the next step asks at once. */
  #resign (msg: string, retryNow = false): false {
    if (this.#counter !== null) this.#d.log.warn(msg)
    this.#counter = null
    this.lease.forget()
    if (retryNow) this.#nextTry = 0
    return false
  }

  /** The counter as stored, or the highest stamp if a crash came between stamping and storing it. */
  async #recover (): Promise<number | null> {
    const coll = this.lease.coll
    const doc = (await coll.findOne({ _id: SEQUENCER_LEASE })) as SequencerDoc | null
    const counter = Math.max(doc?.seq ?? 0, await this.#d.store.lastSeq())
    const res = await coll.updateOne({ _id: SEQUENCER_LEASE, holder: this.lease.holder }, { $set: { seq: counter } })
    return res.matchedCount === 1 ? counter : null
  }

  async #pending (session?: ClientSession): Promise<Array<{ _id: string }>> {
    return await this.#d.store.coll
      .find(
        { pending: { $exists: true } },
        {
          sort: { pending: 1 },
          limit: this.#d.batchSize,
          projection: { _id: 1 },
          ...(session !== undefined ? { session } : {})
        }
      )
      .toArray()
  }

  /** One update per event: its `seq` (typed as plain documents: the driver's filter types take `_id` for an ObjectId, events' are strings). */
  #stampStatements (pending: Array<{ _id: string }>, from: number): Array<{ filter: Document; update: Document }> {
    return pending.map((e, i) => ({
      filter: { _id: e._id, pending: { $exists: true } },
      update: { $set: { seq: from + i + 1 }, $unset: { pending: '' } }
    }))
  }

  #stamps (pending: Array<{ _id: string }>, from: number): Array<AnyBulkWriteOperation<EventDoc>> {
    return this.#stampStatements(pending, from).map((updateOne) => ({ updateOne }))
  }

  /** Standalone: ordered updates, so readers see a prefix of the batch at any time, then the counter. */
  async #stampPlain (): Promise<number> {
    if (!this.lease.held(this.lease.ttlMs / 3)) return 0
    const pending = await this.#pending()
    if (pending.length === 0) return 0
    const from = this.#counter as number
    try {
      const res = await this.#d.store.coll.bulkWrite(this.#stamps(pending, from), { ordered: true })
      if (res.matchedCount < pending.length) {
        this.#d.log.error(
          { from, missed: pending.length - res.matchedCount },
          'events stamped by another sequencer meanwhile; their numbers stay unused'
        )
      }
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
      this.#d.log.error({ err, from }, 'another sequencer used these numbers (its lease took over ours)')
      this.#resign('event sequencer fenced off', true)
      return 0
    }
    this.#counter = from + pending.length
    const res = await this.lease.coll.updateOne(
      { _id: SEQUENCER_LEASE, holder: this.lease.holder },
      { $set: { seq: this.#counter } }
    )
    if (res.matchedCount === 0) this.#resign('lost the event sequencer lease while stamping')
    return pending.length
  }

  /** Replica set: the stamps and the guarded counter update commit together or not at all. */
  async #stampInTransaction (): Promise<number> {
    const session = this.#d.db.client.startSession()
    try {
      session.startTransaction({ writeConcern: { w: 'majority' } })
      const pending = await this.#pending(session)
      if (pending.length === 0) {
        await session.abortTransaction()
        return 0
      }
      const from = this.#counter as number
      if (!(await this.#stampBatch(pending, from, session))) {
        await session.abortTransaction()
        this.#resign('the event sequencer lease was taken over')
        return 0
      }
      await this.#commit(session)
      this.#counter = from + pending.length
      return pending.length
    } catch (thrown) {
      const err = unwrapBulkWriteError(thrown)
      if (session.inTransaction()) await session.abortTransaction().catch(() => {})
      if (isDuplicateKey(err)) this.#d.log.error({ err }, 'another sequencer used these numbers')
      // A takeover's lease write, a commit whose outcome stayed unknown, a used number: start again from what is stored.
      else if (!hasLabel(err, TRANSIENT) && !hasLabel(err, UNKNOWN_COMMIT)) throw err
      this.#resign('event sequencer batch aborted; leading again from the stored counter', true)
      return 0
    } finally {
      await session.endSession()
    }
  }

  /**
   * Inside the batch's transaction: every pending event of the batch gets its number (its place
   * in `pending`, which is in stamping order; all become visible at the commit) and the counter
   * moves, guarded by this holder and the counter as it was read. With the bulkWrite command all
   * go in one round trip. One plain `$set` per event, not one pipeline update of the batch: on
   * @svc/devdb a pipeline evaluated per document cost as much as inserting the event three times.
   * False when the lease guard missed.
   */
  async #stampBatch (pending: Array<{ _id: string }>, from: number, session: ClientSession): Promise<boolean> {
    const counter: { filter: Document; update: Document } = {
      filter: { _id: SEQUENCER_LEASE, holder: this.lease.holder, seq: from },
      update: { $set: { seq: from + pending.length } }
    }
    const { client } = this.#d.db
    if (await bulkWriteSupported(client)) {
      const events = namespaceOf(this.#d.store.coll)
      const models: Array<AnyClientBulkWriteModel<Document>> = [
        ...this.#stampStatements(pending, from).map((stamp) => ({
          name: 'updateOne' as const,
          namespace: events,
          ...stamp
        })),
        { name: 'updateOne', namespace: namespaceOf(this.lease.coll), ...counter }
      ]
      const res = await client.bulkWrite(models, { ordered: true, session, verboseResults: true })
      return res.updateResults?.get(pending.length)?.matchedCount === 1
    }
    await this.#d.store.coll.bulkWrite(this.#stamps(pending, from), { ordered: true, session })
    return (await this.lease.coll.updateOne(counter.filter, counter.update, { session })).matchedCount === 1
  }

  async #commit (session: ClientSession): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        await session.commitTransaction()
        return
      } catch (err) {
        if (!hasLabel(err, UNKNOWN_COMMIT) || tries >= 3) throw err
      }
    }
  }

  async #sweep (counter: number): Promise<void> {
    this.#nextSweep = Date.now() + this.#d.sweepIntervalMs
    const top = await sweepEvents(this.#d.store, this.#d.retainMs(), counter)
    if (top === null) return
    await this.lease.coll.updateOne({ _id: SEQUENCER_LEASE }, { $max: { swept: top } })
    this.#d.log.debug({ swept: top }, 'event log swept')
  }

  /** Gives the lease up (clean shutdown): another instance takes over at its next try. */
  async close (): Promise<void> {
    if (this.#counter === null) return
    this.#counter = null
    await this.lease.release()
  }
}
