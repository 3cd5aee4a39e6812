import type { Document } from 'mongodb'
import type { WriteResult } from '../types.js'

/** One document a durable effect inserts: `document._id` is required (a replay is idempotent by it). */
export interface DurableDoc {
  collection: string
  document: Document & { _id: unknown }
}

/**
 * Builds the documents a write must leave behind (audit rows, webhook outbox rows). Core
 * guarantees they exist iff the write committed. Runs once per write attempt, before the write
 * on a standalone server (it gets the exact images the write will produce): keep it pure, no
 * I/O that expects the new state. A throw refuses the write (nothing is written).
 */
export type DurableEffect = (result: WriteResult) => DurableDoc[] | Promise<DurableDoc[]>

export interface NamedEffect { name: string, build: DurableEffect }
