/**
 * Per-collection operation latency, as mongod's Top keeps it for `$collStats: { latencyStats }`:
 * total microseconds and count of reads, writes, other commands and transaction statements.
 */
import { Long, type Document } from 'bson'

type Kind = 'reads' | 'writes' | 'commands' | 'transactions'
interface Totals {
  latency: bigint
  ops: bigint
}

const READS = new Set(['find', 'getMore', 'aggregate', 'count', 'distinct'])
const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'bulkWrite'])

export class LatencyStats {
  private readonly byNs = new Map<string, Record<Kind, Totals>>()

  record (ns: string, name: string, inTransaction: boolean, micros: bigint): void {
    let t = this.byNs.get(ns)
    if (t === undefined) {
      const zero = (): Totals => ({ latency: 0n, ops: 0n })
      t = { reads: zero(), writes: zero(), commands: zero(), transactions: zero() }
      this.byNs.set(ns, t)
    }
    const kind: Kind = inTransaction
      ? 'transactions'
      : READS.has(name)
        ? 'reads'
        : WRITES.has(name)
          ? 'writes'
          : 'commands'
    t[kind].latency += micros
    t[kind].ops++
  }

  /** `latencyStats` of `$collStats` (no histograms). */
  of (ns: string): Document {
    const t = this.byNs.get(ns)
    const out: Document = {}
    for (const kind of ['reads', 'writes', 'commands', 'transactions'] as const) {
      const v = t?.[kind] ?? { latency: 0n, ops: 0n }
      out[kind] = { latency: Long.fromBigInt(v.latency), ops: Long.fromBigInt(v.ops) }
    }
    return out
  }

  /** A dropped collection starts again from zero, as in mongod. */
  forget (ns: string): void {
    this.byNs.delete(ns)
  }
}
