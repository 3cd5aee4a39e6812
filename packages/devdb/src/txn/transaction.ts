/**
 * One multi-document transaction: a private fork of the catalog taken at its start (snapshot
 * reads, private writes), the journal entries of its writes in order, and the documents it has
 * written (locked against other transactions).
 */
import type { Catalog } from '../engine/catalog.js'
import type { JournalEntry } from '../storage/types.js'

export type TxnState = 'inProgress' | 'committed' | 'aborted'

export class Transaction {
  state: TxnState = 'inProgress'
  /** every write of the transaction, in order: its commit applies (and journals) exactly these */
  readonly entries: JournalEntry[] = []
  /** docKeys written (each locked by this transaction until it ends) */
  readonly written = new Set<string>()
  readonly startedAt = Date.now()

  constructor (
    readonly session: string,
    readonly txnNumber: bigint,
    /** the catalog's writeSeq when the snapshot was taken */
    readonly snapshotSeq: number,
    /** the transaction's private view */
    readonly view: Catalog
  ) {}

  expired (now: number, lifetimeMs: number): boolean {
    return now - this.startedAt > lifetimeMs
  }
}
