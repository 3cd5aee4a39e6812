/**
 * Turns each committed write into change events. The committer brackets every write (a command,
 * a transaction's commit, a TTL sweep) with `begin`/`end`: meanwhile the catalog reports the
 * first pre-image of each document it changes, and `end` reads the write's journal entries — the
 * same record that makes it durable, so an event exists iff its write committed — in order. A
 * transaction's statements write to its private catalog and journal nothing until the commit, so
 * its events appear at the commit, all together, in commit order.
 */
import type { Document } from 'bson'
import type { Catalog } from '../engine/catalog.js'
import { docKey } from '../engine/catalog.js'
import type { ClusterClock } from '../txn/cluster-time.js'
import type { JournalEntry } from '../storage/types.js'
import type { ChangeHistory, NewChange } from './history.js'
import { isReplacement } from './replacements.js'

type Base = Pick<NewChange, 'time' | 'wallTime' | 'txn'>

export class ChangeCapture {
  /** docKey → the document before this write touched it (null: it did not exist) */
  private pre: Map<string, Document | null> | undefined
  /** collections of the database a dropDatabase removes (each gets a `drop` event first) */
  private droppedCollections: string[] = []

  constructor (
    private readonly catalog: Catalog,
    private readonly clock: ClusterClock,
    readonly history: ChangeHistory
  ) {
    catalog.preImageSink = (ns, id, doc) => {
      const key = docKey(ns, id)
      if (this.pre !== undefined && !this.pre.has(key)) this.pre.set(key, doc ?? null)
    }
  }

  begin (body?: Document): void {
    this.pre = new Map()
    this.droppedCollections =
      body !== undefined && Object.keys(body)[0] === 'dropDatabase' && typeof body.$db === 'string'
        ? this.catalog.collections(body.$db).map((c) => c.name)
        : []
  }

  /** Appends the write's events; returns the newest history seq (to settle once durable). */
  end (journal: JournalEntry[], body: Document | undefined, pending: boolean): number {
    const pre = this.pre ?? new Map<string, Document | null>()
    this.pre = undefined
    if (journal.length === 0) return this.history.latestSeq
    const name = body !== undefined ? Object.keys(body)[0] : undefined
    // A write ticks the clock in runCommand; a TTL sweep does not: give its events their own time.
    const last = this.lastTime
    const time = last !== undefined && !this.clock.last.greaterThan(last) ? this.clock.tick() : this.clock.last
    this.lastTime = time
    const base: Base = { time, wallTime: new Date() }
    if (name === 'commitTransaction' && body !== undefined) base.txn = { lsid: body.lsid, txnNumber: body.txnNumber }
    let changes: NewChange[]
    if (name === 'renameCollection' && body !== undefined) changes = this.renamed(journal, body, base)
    else changes = this.fromJournal(journal, pre, base)
    return this.history.append(changes, pending)
  }

  private lastTime: NewChange['time'] | undefined

  private images (db: string, coll: string): boolean {
    return this.catalog.get(db, coll)?.options.changeStreamPreAndPostImages?.enabled === true
  }

  private fromJournal (journal: JournalEntry[], pre: Map<string, Document | null>, base: Base): NewChange[] {
    const out: NewChange[] = []
    const current = new Map(pre)
    for (const e of journal) {
      switch (e.t) {
        case 'put': {
          const key = docKey(`${e.db}.${e.coll}`, e.doc._id)
          const before = current.get(key) ?? undefined
          current.set(key, e.doc)
          const op = before === undefined ? 'insert' : isReplacement(e.doc) ? 'replace' : 'update'
          out.push({
            ...base,
            op,
            db: e.db,
            coll: e.coll,
            id: e.doc._id,
            pre: before,
            post: e.doc,
            images: this.images(e.db, e.coll)
          })
          break
        }
        case 'del': {
          const key = docKey(`${e.db}.${e.coll}`, e.id)
          const before = current.get(key) ?? undefined
          current.set(key, null)
          out.push({
            ...base,
            op: 'delete',
            db: e.db,
            coll: e.coll,
            id: e.id,
            pre: before,
            images: this.images(e.db, e.coll)
          })
          break
        }
        case 'dropCollection':
          out.push({ ...base, op: 'drop', db: e.db, coll: e.coll, images: false })
          break
        case 'dropDatabase':
          for (const coll of this.droppedCollections) out.push({ ...base, op: 'drop', db: e.db, coll, images: false })
          out.push({ ...base, op: 'dropDatabase', db: e.db, images: false })
          break
        default:
        // createCollection, createIndex, dropIndex: mongod shows them only with showExpandedEvents
      }
    }
    return out
  }

  /** renameCollection journals a copy and a drop; its one event is `rename` (after the target's `drop` with dropTarget). */
  private renamed (journal: JournalEntry[], body: Document, base: Base): NewChange[] {
    const [fromDb, fromColl] = splitNs(body.renameCollection as string)
    const [toDb, toColl] = splitNs(body.to as string)
    const out: NewChange[] = []
    const droppedTarget = journal.findIndex((e) => e.t === 'dropCollection' && e.db === toDb && e.coll === toColl)
    const created = journal.findIndex((e) => e.t === 'createCollection' && e.db === toDb && e.coll === toColl)
    if (droppedTarget >= 0 && droppedTarget < created) {
      out.push({ ...base, op: 'drop', db: toDb, coll: toColl, images: false })
    }
    out.push({ ...base, op: 'rename', db: fromDb, coll: fromColl, to: { db: toDb, coll: toColl }, images: false })
    return out
  }
}

function splitNs (ns: string): [string, string] {
  const i = ns.indexOf('.')
  return [ns.slice(0, i), ns.slice(i + 1)]
}
