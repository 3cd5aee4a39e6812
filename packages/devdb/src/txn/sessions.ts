/**
 * Logical sessions and their transactions (replica-set mode), as MongoDB 7 defines them: a
 * transaction is started by `startTransaction: true` with a new `txnNumber`, every statement
 * carries `autocommit: false`, and `commitTransaction`/`abortTransaction` end it. Statements run
 * on the transaction's private fork of the catalog; nothing reaches the shared catalog (or the
 * journal) before the commit, which applies and journals all of it as one record.
 *
 * Conflicts: a transaction writing a document that another open transaction has written, or
 * that was written after its snapshot, fails at once with WriteConflict (112,
 * TransientTransactionError) and is aborted; the commit checks again for writes made meanwhile
 * outside transactions (first committer wins).
 */
import { createHash } from 'node:crypto'
import { Binary, Long, type Document } from 'bson'
import { docKey, type Catalog } from '../engine/catalog.js'
import type { JournalEntry } from '../storage/types.js'
import { CommandError, Codes } from '../errors.js'
import { Transaction } from './transaction.js'
import { applyCommit } from './commit.js'
import { noSuchTransaction, notInTransaction, writeConflict } from './errors.js'

/** mongod's transactionLifetimeLimitSeconds */
export const TRANSACTION_LIFETIME_MS = 60_000

/**
 * Commands a transaction may run: mongod 7.0's (and 8.0's bulkWrite), less the ones devdb has not (`count` is not among
 * them there either). `create` and `createIndexes` make new collections and their indexes, seen by
 * the transaction and installed by its commit.
 */
const IN_TRANSACTION = new Set([
  'find',
  'getMore',
  'killCursors',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'bulkWrite',
  'aggregate',
  'distinct',
  'commitTransaction',
  'abortTransaction',
  'create',
  'createIndexes'
])

/** Runs a command's handler against `catalog`, with its writes going to `journal`. */
export type Execute = (catalog: Catalog, journal: JournalEntry[]) => Document

interface Session {
  txnNumber: bigint
  txn?: Transaction
  /** the reply of the session's last retryable write, answered again to a retry of it */
  retried?: { txnNumber: bigint; reply: Document }
}

/** mongod's logicalSessionTimeoutMinutes: an idle session leaves the local session cache after it */
const SESSION_TIMEOUT_MS = 30 * 60_000
/** the user digest of sessions without authentication: SHA-256 of the empty user name */
export const NO_AUTH_UID = new Binary(createHash('sha256').update('').digest())

/** Commands the driver retries with a txnNumber (retryable writes). */
const RETRYABLE = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'bulkWrite'])

export class Sessions {
  private readonly sessions = new Map<string, Session>()
  /** docKey → the open transaction that wrote it */
  private readonly locks = new Map<string, Transaction>()
  /** the local logical session cache ($listLocalSessions): every lsid a command carried, by key */
  private readonly local = new Map<string, { id: unknown; lastUse: Date }>()

  /** `lifetimeMs`: read at each check, so setParameter transactionLifetimeLimitSeconds applies at once. */
  constructor (
    private readonly catalog: Catalog,
    private readonly lifetimeMs: () => number = () => TRANSACTION_LIFETIME_MS
  ) {}

  /** serverStatus `transactions` counters, named as mongod's */
  readonly stats = { totalStarted: 0, totalCommitted: 0, totalAborted: 0 }

  get status (): Document {
    return { currentOpen: this.catalog.openTransactions, ...this.stats }
  }

  /**
   * A command of a transaction (`autocommit: false`, or commit/abort). `journal` is the command's
   * durable effects: empty for statements, the whole transaction for a commit.
   */
  run (cmd: Document, name: string, journal: JournalEntry[], execute: Execute): Document {
    const sessionId = lsidKey(cmd.lsid)
    const txnNumber = txnNumberOf(cmd)
    if (cmd.autocommit !== false) {
      throw new CommandError(
        Codes.InvalidOptions,
        'InvalidOptions',
        "'autocommit' field can only be specified as false"
      )
    }
    if (!IN_TRANSACTION.has(name)) throw notInTransaction(name)
    this.expire()
    let session = this.sessions.get(sessionId)
    if (cmd.startTransaction === true) {
      if (session !== undefined && txnNumber < session.txnNumber) {
        throw new CommandError(
          225,
          'TransactionTooOld',
          `Cannot start transaction ${txnNumber} on session ${sessionId} because a newer transaction ${session.txnNumber} has already started.`
        )
      }
      if (session !== undefined && txnNumber === session.txnNumber) {
        throw new CommandError(
          Codes.ConflictingOperationInProgress,
          'ConflictingOperationInProgress',
          `Cannot start a transaction with txnNumber ${txnNumber} on session ${sessionId} because it has already started`
        )
      }
      if (session?.txn?.state === 'inProgress') this.end(session.txn, 'aborted')
      session = { txnNumber, txn: this.begin(sessionId, txnNumber) }
      this.sessions.set(sessionId, session)
    } else if (cmd.startTransaction !== undefined) {
      throw new CommandError(Codes.BadValue, 'BadValue', 'startTransaction must be true')
    }
    const txn = session?.txn
    if (session === undefined || txn === undefined || session.txnNumber !== txnNumber) {
      throw noSuchTransaction(
        `Given transaction number ${txnNumber} does not match any in-progress transactions.${session !== undefined ? ` The active transaction number is ${session.txnNumber}` : ''}`
      )
    }
    if (name === 'commitTransaction') return this.commit(txn, journal)
    // A commit may be repeated (a retried commit answers ok); anything else needs an open transaction.
    if (txn.state === 'committed') {
      throw new CommandError(
        256,
        'TransactionCommitted',
        `Transaction with { txnNumber: ${txnNumber} } has been committed.`
      )
    }
    if (txn.state === 'aborted') {
      throw noSuchTransaction(`Transaction with { txnNumber: ${txnNumber} } has been aborted.`)
    }
    if (name === 'abortTransaction') {
      this.end(txn, 'aborted')
      return { ok: 1 }
    }
    return this.statement(txn, execute)
  }

  /**
   * A retryable write (txnNumber without autocommit): executed once per txnNumber — a retry of
   * the same number gets the first execution's reply, an older number TransactionTooOld (225).
   */
  retryableWrite (cmd: Document, name: string, execute: () => Document): Document {
    if (!RETRYABLE.has(name)) return execute()
    const sessionId = lsidKey(cmd.lsid)
    const txnNumber = txnNumberOf(cmd)
    let session = this.sessions.get(sessionId)
    if (session !== undefined && txnNumber < session.txnNumber) {
      throw new CommandError(
        225,
        'TransactionTooOld',
        `Retryable write with txnNumber ${txnNumber} is prohibited on session ${sessionId} because a newer retryable write with txnNumber ${session.txnNumber} has already started on this session.`
      )
    }
    if (session?.retried !== undefined && session.retried.txnNumber === txnNumber) return session.retried.reply
    if (session?.txn?.state === 'inProgress') this.end(session.txn, 'aborted')
    session = { txnNumber }
    this.sessions.set(sessionId, session)
    const reply = execute()
    session.retried = { txnNumber, reply }
    return reply
  }

  /** Whether a retryable write is the retry of one already executed (answered again, not run). */
  isRetry (cmd: Document): boolean {
    const key = lsidKeyOrUndefined(cmd.lsid)
    const retried = key === undefined ? undefined : this.sessions.get(key)?.retried
    return retried !== undefined && retried.txnNumber === txnNumberOf(cmd)
  }

  /**
   * The journal write of this command failed and its changes were undone: a commit did not
   * happen after all (the transaction is aborted), a retryable write did not happen (a retry
   * runs it again).
   */
  writeUndone (cmd: Document): void {
    const key = lsidKeyOrUndefined(cmd.lsid)
    const session = key === undefined ? undefined : this.sessions.get(key)
    if (session === undefined) return
    session.retried = undefined
    const txn = session.txn
    if (txn?.state === 'committed' && Object.keys(cmd)[0] === 'commitTransaction') {
      txn.state = 'aborted'
      this.stats.totalCommitted--
      this.stats.totalAborted++
    }
  }

  /** Notes a command's session in the local session cache. */
  touch (lsid: unknown): void {
    const key = lsidKeyOrUndefined(lsid)
    if (key !== undefined) this.local.set(key, { id: (lsid as Document).id, lastUse: new Date() })
  }

  /** `$listLocalSessions`' documents: the sessions used in the last 30 minutes. */
  localSessions (): Document[] {
    const limit = Date.now() - SESSION_TIMEOUT_MS
    for (const [key, s] of this.local) if (s.lastUse.getTime() < limit) this.local.delete(key)
    return [...this.local.values()].map((s) => ({ _id: { id: s.id, uid: NO_AUTH_UID }, lastUse: s.lastUse }))
  }

  /** The transactions in progress (currentOp lists those not running a statement as idle sessions). */
  inProgress (): Transaction[] {
    return [...this.sessions.values()].flatMap((s) => (s.txn?.state === 'inProgress' ? [s.txn] : []))
  }

  /** killAllSessions: every open transaction is aborted (the sessions and their retry history stay, as in mongod). */
  abortAll (): void {
    for (const txn of this.inProgress()) this.end(txn, 'aborted')
  }

  /** endSessions / killSessions: their open transactions are aborted. */
  endSessions (ids: unknown): void {
    if (!Array.isArray(ids)) return
    for (const lsid of ids) {
      const key = lsidKeyOrUndefined(lsid)
      if (key !== undefined) this.local.delete(key)
      const s = key === undefined ? undefined : this.sessions.get(key)
      if (s?.txn?.state === 'inProgress') this.end(s.txn, 'aborted')
      if (key !== undefined) this.sessions.delete(key)
    }
  }

  private begin (sessionId: string, txnNumber: bigint): Transaction {
    this.catalog.openTransactions++
    this.stats.totalStarted++
    return new Transaction(sessionId, txnNumber, this.catalog.writeSeq, this.catalog.fork())
  }

  private statement (txn: Transaction, execute: Execute): Document {
    const local: JournalEntry[] = []
    let reply: Document
    try {
      reply = execute(txn.view, local)
    } catch (e) {
      // mongod aborts a transaction whose statement fails
      this.end(txn, 'aborted')
      throw e
    }
    if (reply.ok !== 1 || reply.writeErrors !== undefined || (typeof reply.nErrors === 'number' && reply.nErrors > 0)) {
      this.end(txn, 'aborted')
      return reply
    }
    for (const e of local) {
      if (e.t === 'createIndex' && !createdIn(txn.entries, local, e.db, e.coll)) {
        // mongod: only a collection the transaction created (or creates with the index) may get one
        this.end(txn, 'aborted')
        throw new CommandError(
          Codes.OperationNotSupportedInTransaction,
          'OperationNotSupportedInTransaction',
          `Cannot create new indexes on existing collection ${e.db}.${e.coll} in a multi-document transaction.`
        )
      }
      if (e.t !== 'put' && e.t !== 'del' && e.t !== 'createCollection' && e.t !== 'createIndex') {
        this.end(txn, 'aborted')
        throw notInTransaction(e.t)
      }
      if (e.t === 'createCollection' || e.t === 'createIndex') continue
      const key = docKey(`${e.db}.${e.coll}`, e.t === 'put' ? e.doc._id : e.id)
      const holder = this.locks.get(key)
      if ((holder !== undefined && holder !== txn) || (this.catalog.lastWrite.get(key) ?? 0) > txn.snapshotSeq) {
        this.end(txn, 'aborted')
        throw writeConflict()
      }
      this.locks.set(key, txn)
      txn.written.add(key)
    }
    txn.entries.push(...local)
    return reply
  }

  private commit (txn: Transaction, journal: JournalEntry[]): Document {
    if (txn.state === 'committed') return { ok: 1 } // a retried commit
    if (txn.state === 'aborted') {
      throw noSuchTransaction(`Transaction with { txnNumber: ${txn.txnNumber} } has been aborted.`)
    }
    try {
      applyCommit(this.catalog, txn)
    } catch (e) {
      this.end(txn, 'aborted')
      throw e
    }
    journal.push(...txn.entries)
    this.end(txn, 'committed')
    return { ok: 1 }
  }

  private end (txn: Transaction, state: 'committed' | 'aborted'): void {
    if (txn.state !== 'inProgress') return
    txn.state = state
    if (state === 'committed') this.stats.totalCommitted++
    else this.stats.totalAborted++
    for (const key of txn.written) if (this.locks.get(key) === txn) this.locks.delete(key)
    this.catalog.openTransactions--
    if (this.catalog.openTransactions === 0) this.catalog.lastWrite.clear()
  }

  /** Aborts transactions older than mongod's transactionLifetimeLimitSeconds. */
  private expire (): void {
    if (this.catalog.openTransactions === 0) return
    const now = Date.now()
    for (const s of this.sessions.values()) {
      if (s.txn?.state === 'inProgress' && s.txn.expired(now, this.lifetimeMs())) this.end(s.txn, 'aborted')
    }
  }
}

function createdIn (entries: JournalEntry[], local: JournalEntry[], db: string, coll: string): boolean {
  return [...entries, ...local].some((e) => e.t === 'createCollection' && e.db === db && e.coll === coll)
}

function lsidKeyOrUndefined (lsid: unknown): string | undefined {
  const id = (lsid as { id?: { toString?: (enc: string) => string; buffer?: Uint8Array } } | undefined)?.id
  if (id === undefined || typeof id !== 'object' || id === null) return undefined
  return Buffer.from((id as { buffer: Uint8Array }).buffer).toString('hex')
}

function lsidKey (lsid: unknown): string {
  const key = lsidKeyOrUndefined(lsid)
  if (key === undefined) {
    throw new CommandError(
      Codes.InvalidOptions,
      'InvalidOptions',
      'Transaction numbers are only allowed on a session (lsid is missing)'
    )
  }
  return key
}

function txnNumberOf (cmd: Document): bigint {
  const n = cmd.txnNumber
  if (n instanceof Long) return n.toBigInt()
  if (typeof n === 'number' && Number.isInteger(n)) return BigInt(n)
  if (typeof n === 'bigint') return n
  throw new CommandError(
    Codes.TypeMismatch,
    'TypeMismatch',
    "BSON field 'txnNumber' is the wrong type, expected type 'long'"
  )
}
