import type { ClientSession, Collection, Db, Document, ObjectId } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { WriteResult } from '../types.js'
import type { DurableDoc, IntentStore, RecordState } from './intents.js'

export type { DurableDoc } from './intents.js'

/**
 * Builds the documents a write must leave behind (audit rows, the event log). Core
 * guarantees they exist iff the write committed. Runs once per write attempt, before the write
 * (it gets the exact images the write will produce): keep it pure, no I/O that expects the new
 * state. A throw refuses the write (nothing is written).
 */
export type DurableEffect = (result: WriteResult) => DurableDoc[] | Promise<DurableDoc[]>

/**
 * `migrations`: the effect also records migrations (`operation: 'migrate'` results of
 * `svc schema apply`, which publish no event): audit rows do, an event outbox does not.
 */
export interface NamedEffect {
  name: string
  build: DurableEffect
  migrations?: boolean
}

/** One record the write moves from one state to the next (`null`: absent). */
export interface Target {
  recordId: ObjectId
  from: RecordState
  to: RecordState
}

/**
 * A write planned against the records as read: the images in `results` are exactly what
 * `write` produces. `write` must be guarded by each target's `from` state (`updatedAt`, or
 * absence for a create), pass `session` to every driver call (it carries the transaction when
 * there is one) and answer the ids (hex) of the records it changed.
 */
export interface PlannedWrite {
  coll: Collection
  targets: Target[]
  results: WriteResult[]
  write: (session?: ClientSession) => Promise<string[]>
  /**
   * `write` as one statement on `coll` (a create's inserts, a guarded updateOne or deleteOne): in
   * a transaction on a server with the bulkWrite command it goes with the effect documents in one
   * command (one-command.ts). Give both with `fromStatement` (statement.ts), so they cannot differ.
   */
  statement?: RecordStatement
}

/**
 * A planned write as a single statement, named as the driver's collection method it is: one
 * document inserted, several in order, or one guarded update or delete (landed iff it matched).
 */
export type RecordStatement =
  | { insertOne: Document }
  | { insertMany: readonly Document[] }
  | { updateOne: { filter: Document; update: Document } }
  | { deleteOne: { filter: Document } }

/** What a durable service needs: its effects, the shared intent store and how to commit. */
export interface DurableContext {
  db: Db
  store: IntentStore
  effects: readonly NamedEffect[]
  leaseMs: number
  log: FastifyBaseLogger
  /** Commit each write in a multi-document transaction (replica set, mongos) instead of write-ahead intents. */
  transactions: boolean
}

/**
 * One try of a planned write: committed (`changed`), or not — `wait` when another writer is
 * in flight (back off before planning again), `taken` when a record's `from` state was already
 * left by a completed write.
 */
export type Attempt = { ok: true; changed: string[] } | { ok: false; wait: boolean; taken: boolean }

/** The guard no longer matched: plan again at once on the fresh records. */
export const MISSED: Attempt = Object.freeze({ ok: false, wait: false, taken: false })
/** Another writer is in flight: back off, then plan again. */
export const BUSY: Attempt = Object.freeze({ ok: false, wait: true, taken: false })
