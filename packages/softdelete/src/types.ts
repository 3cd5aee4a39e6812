import type { RecordJson, RequestContext } from '@svc/core'

/** Options of the @svc/softdelete plugin. */
export interface SoftDeleteOptions {
  /**
   * Global tombstone retention in days, for schemas without `softDelete.retentionDays`.
   * Default: `SOFT_DELETE_RETENTION_DAYS` from the environment; unset, tombstones are kept forever.
   */
  retentionDays?: number
  /** How often the retention sweep runs (leased: one replica at a time); default 1 hour. `0` disables the timer (call `sweep()` yourself). */
  sweepIntervalMs?: number
  /** Tombstones removed per query round of the sweep; default 100. */
  sweepBatchSize?: number
  /** The clock (tests inject one); default `() => new Date()`. */
  now?: () => Date
}

/** What one sweep removed, by `<version>/<path>`. */
export interface SweepReport {
  purged: Record<string, number>
}

/** `app.svc.softDelete`: the operations soft delete adds, for every surface (REST, GraphQL, MCP). */
export interface SoftDeleteApi {
  /** Clears `deletedAt` of a tombstone the caller may delete; 404 for a live, unknown or foreign record. */
  restore(ctx: RequestContext, path: string, id: string, version?: string): Promise<RecordJson>
  /** One retention sweep over every schema with a retention; safe to run on several replicas at once. */
  sweep(): Promise<SweepReport>
  /** The retention that applies to a schema (its own, else the global one), or undefined (kept forever). */
  retentionDays(path: string, version?: string): number | undefined
}

declare module '@svc/core' {
  interface SvcContext {
    /** Present when @svc/softdelete is registered. */
    softDelete?: SoftDeleteApi
  }
}
