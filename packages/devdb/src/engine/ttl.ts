/**
 * TTL monitor: every `intervalMs` (MongoDB: ttlMonitorSleepSecs = 60) deletes documents whose
 * indexed date (or the earliest date of an array) is older than expireAfterSeconds.
 */
import type { Catalog } from './catalog.js'
import type { DurableStore, JournalEntry } from '../storage/types.js'
import { valuesAtPath } from './paths.js'

export class TtlSweeper {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> = Promise.resolve()
  constructor (private readonly catalog: Catalog, private readonly intervalMs: number, private readonly store?: DurableStore) {}

  start (): void {
    this.timer = setInterval(() => { this.running = this.running.then(async () => { await this.sweep() }).catch(() => {}) }, this.intervalMs)
    this.timer.unref()
  }

  stop (): void {
    if (this.timer !== undefined) clearInterval(this.timer)
  }

  async idle (): Promise<void> { await this.running }

  async sweep (now = Date.now()): Promise<number> {
    const journal: JournalEntry[] = []
    for (const colls of this.catalog.dbs.values()) {
      for (const coll of colls.values()) {
        for (const ix of coll.userIndexes) {
          if (ix.expireAfterSeconds === undefined) continue
          const field = ix.fields[0]
          const cutoff = now - ix.expireAfterSeconds * 1000
          for (const doc of [...coll.docs.values()]) {
            if (ix.partial !== undefined && !ix.partial(doc)) continue
            const dates: number[] = []
            for (const v of valuesAtPath(doc, field)) {
              for (const x of Array.isArray(v) ? v : [v]) if (x instanceof Date) dates.push(x.getTime())
            }
            if (dates.length === 0 || Math.min(...dates) > cutoff) continue
            coll.remove(doc)
            journal.push({ t: 'del', db: coll.db, coll: coll.name, id: doc._id })
          }
        }
      }
    }
    if (journal.length > 0 && this.store !== undefined) await this.store.commit(journal)
    return journal.length
  }
}
