/**
 * TTL monitor: every `intervalMs` (MongoDB: ttlMonitorSleepSecs = 60) deletes documents whose
 * indexed date (or the earliest date of an array) is older than expireAfterSeconds.
 */
import type { Catalog } from './catalog.js'
import type { JournalEntry } from '../storage/types.js'
import type { Committer } from './committer.js'
import { Edge } from '../bson/key-compare.js'
import { Rank } from '../bson/bson-order.js'

export class TtlSweeper {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private running: Promise<void> = Promise.resolve()
  /** @param intervalMs read before each sleep, so `setParameter ttlMonitorSleepSecs` takes effect at the next one */
  constructor (
    private readonly catalog: Catalog,
    private readonly intervalMs: () => number,
    private readonly committer: Committer
  ) {}

  start (): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.running = this.running
        .then(async () => {
          await this.sweep()
        })
        .catch(() => {})
      this.start()
    }, this.intervalMs())
    this.timer.unref()
  }

  stop (): void {
    this.stopped = true
    if (this.timer !== undefined) clearTimeout(this.timer)
  }

  async idle (): Promise<void> {
    await this.running
  }

  async sweep (now = Date.now()): Promise<number> {
    return await this.committer.run((journal) => this.remove(now, journal))
  }

  private remove (now: number, journal: JournalEntry[]): number {
    for (const colls of this.catalog.dbs.values()) {
      for (const coll of colls.values()) {
        for (const ix of coll.userIndexes) {
          if (ix.expireAfterSeconds === undefined) continue
          // Every indexed date at or before the cutoff (an array expires with its earliest date).
          const cutoff = new Date(now - ix.expireAfterSeconds * 1000)
          const first = new Edge(Rank.Date, -1)
          const [lo, hi] = ix.dirs[0] === 1 ? [first, cutoff] : [cutoff, first]
          const rids = new Set<number>()
          ix.tree.forRange([lo, -Infinity], [hi, Infinity], true, (k: unknown[]) => {
            rids.add(k[1] as number)
          })
          for (const rid of rids) {
            const doc = coll.records.get(rid)
            if (doc === undefined) continue
            coll.remove(doc)
            journal.push({ t: 'del', db: coll.db, coll: coll.name, id: doc._id })
          }
        }
      }
    }
    return journal.length
  }
}
