/**
 * Logical time of the single-node replica set: every write advances it (mongod's optime, seconds
 * and an increment), every reply in replica-set mode carries `operationTime` and `$clusterTime`
 * (so the driver's causally consistent sessions send `afterClusterTime`, always satisfied on one
 * node), and snapshot reads outside transactions (`readConcern: { level: 'snapshot' }`, with or
 * without `atClusterTime`) read the catalog as it was at that time: the first such read at a time
 * keeps an O(1) copy-on-write fork of the catalog, kept for mongod's
 * `minSnapshotHistoryWindowInSeconds` (300 s); older times answer `SnapshotTooOld` (239).
 */
import { Binary, Long, Timestamp, type Document } from 'bson'
import type { Catalog } from '../engine/catalog.js'
import { CommandError, Codes } from '../errors.js'

const HISTORY_WINDOW_MS = 300_000
/** forks kept at most (the oldest go first) */
const HISTORY_MAX = 64
const NO_SIGNATURE = { hash: new Binary(Buffer.alloc(20)), keyId: Long.fromNumber(0) }

export class ClusterClock {
  private secs = Math.floor(Date.now() / 1000)
  private inc = 1
  /** time of the latest write (or of the start) */
  last = new Timestamp({ t: this.secs, i: this.inc })
  /** catalog forks by the time they show, oldest first */
  private readonly history = new Map<string, { catalog: Catalog; takenAt: number }>()

  /** Advances the time for a write and returns it. */
  tick (): Timestamp {
    const now = Math.floor(Date.now() / 1000)
    if (now > this.secs) {
      this.secs = now
      this.inc = 1
    } else this.inc++
    this.last = new Timestamp({ t: this.secs, i: this.inc })
    return this.last
  }

  /** `operationTime` and `$clusterTime` of a reply (unsigned: devdb has no auth, as mongod without keys). */
  gossip (reply: Document): Document {
    return { ...reply, operationTime: this.last, $clusterTime: { clusterTime: this.last, signature: NO_SIGNATURE } }
  }

  /**
   * The catalog a snapshot read at `at` (default: now) sees, and that time. `current` is the live
   * catalog, forked the first time a read asks for the current time.
   */
  snapshot (current: Catalog, at: unknown): { catalog: Catalog; atClusterTime: Timestamp } {
    this.prune()
    if (at !== undefined && !(at instanceof Timestamp)) {
      throw new CommandError(
        Codes.TypeMismatch,
        'TypeMismatch',
        "BSON field 'readConcern.atClusterTime' is the wrong type, expected type 'timestamp'"
      )
    }
    const t = at ?? this.last
    if (t.greaterThan(this.last)) {
      throw new CommandError(
        Codes.InvalidOptions,
        'InvalidOptions',
        `readConcern atClusterTime value must not be greater than the current clusterTime. Requested clusterTime: ${formatTs(t)}; current clusterTime: ${formatTs(this.last)}`
      )
    }
    const key = t.toString()
    const kept = this.history.get(key)
    if (kept !== undefined) return { catalog: kept.catalog, atClusterTime: t }
    if (!t.equals(this.last)) {
      throw new CommandError(
        239,
        'SnapshotTooOld',
        `Read timestamp ${formatTs(t)} is older than the oldest available timestamp.`
      )
    }
    const catalog = current.fork()
    this.history.set(key, { catalog, takenAt: Date.now() })
    if (this.history.size > HISTORY_MAX) this.history.delete(this.history.keys().next().value as string)
    return { catalog, atClusterTime: t }
  }

  private prune (): void {
    const limit = Date.now() - HISTORY_WINDOW_MS
    for (const [key, h] of this.history) {
      if (h.takenAt >= limit) break
      this.history.delete(key)
    }
  }
}

function formatTs (t: Timestamp): string {
  return `Timestamp(${t.t}, ${t.i})`
}
