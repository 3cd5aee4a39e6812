/** What every command handler receives. */
import type { Document } from 'bson'
import type { Catalog } from '../engine/catalog.js'
import type { CursorManager } from '../engine/cursors.js'
import type { DurableStore, JournalEntry } from '../storage/types.js'
import type { Deadline } from '../engine/deadline.js'
import type { Sessions } from '../txn/sessions.js'
import type { ClusterClock } from '../txn/cluster-time.js'
import type { AdminState } from '../admin/admin-state.js'
import type { ChangeHistory } from '../change-streams/history.js'

export interface ServerState {
  catalog: Catalog
  cursors: CursorManager
  startedAt: Date
  host: string
  port: number
  connections: { current: number; totalCreated: number }
  opcounters: Record<string, number>
  /** mongod server parameters devdb honours (getParameter / setParameter) */
  params: ServerParams
  /** the durable store when devdb runs with a dbPath (serverStatus reports whether it can write) */
  store?: DurableStore
  /** connections and operations in flight, server log, latency, fail points (src/admin/) */
  admin: AdminState
  /** replica-set name (single-node replica set: transactions); undefined = standalone */
  replSetName?: string
  /** logical sessions and their transactions */
  sessions: Sessions
  /** logical time: operationTime/$clusterTime of replies, snapshot reads */
  clock: ClusterClock
  /** the change streams' history (replica-set mode) */
  changes?: ChangeHistory
}

export interface ServerParams {
  /** 7.0 default true: a blocking sort over the memory limit "spills" unless the command says allowDiskUse: false */
  allowDiskUseByDefault: boolean
  internalQueryMaxBlockingSortMemoryUsageBytes: number
  /** the TTL monitor's sleep between sweeps (startup option and setParameter, as mongod) */
  ttlMonitorSleepSecs: number
  /** how long a transaction may stay open before it is aborted (mongod's default 60; setParameter) */
  transactionLifetimeLimitSeconds: number
}

export function defaultParams (): ServerParams {
  return {
    allowDiskUseByDefault: true,
    internalQueryMaxBlockingSortMemoryUsageBytes: 100 * 1024 * 1024,
    ttlMonitorSleepSecs: 60,
    transactionLifetimeLimitSeconds: 60
  }
}

export interface CommandContext {
  server: ServerState
  db: string
  connectionId: number
  /** Durable effects of this command; committed (fsync) before the reply is sent. */
  journal: JournalEntry[]
  /** the command's maxTimeMS budget (unlimited when absent) */
  deadline: Deadline
  /** set by explain: plan afresh (no plan cache) so every candidate is shown */
  explaining?: boolean
}

/** Handlers are synchronous: all memory mutation happens before the journal is committed. */
export type Handler = (cmd: Document, ctx: CommandContext) => Document
