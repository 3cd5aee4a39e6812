/**
 * SORT (blocking, in memory, with mongod's 100 MB limit unless disk use is allowed; keeps only
 * the top `limit` rows when it has one) and SORT_MERGE (merges index scans that each return
 * rows in sort order, e.g. one per `$in` point, so the sort needs no blocking stage).
 */
import { calculateObjectSize, type Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import type { StringCompare } from '../bson/bson-order.js'
import { compareKeyValues } from '../bson/key-compare.js'
import { cmpSortValues, sortValue, type SortKey } from '../query/sort.js'
import { Stage, NEED_TIME, EOF, rowDoc, type ExecContext, type Row, type WorkResult } from './stage.js'
import type { IndexScan } from './scan-stages.js'

export const SORT_MEMORY_LIMIT = 100 * 1024 * 1024

const sizes = new WeakMap<Document, number>()
function docSize (d: Document): number {
  let s = sizes.get(d)
  if (s === undefined) sizes.set(d, (s = calculateObjectSize(d)))
  return s
}

interface Item {
  row: Row
  doc: Document
  seq: number
  key: unknown[]
}

export interface SortOptions {
  keys: SortKey[]
  /** keep only the first `limit` rows (skip + limit of the query); 0 = all */
  limit: number
  /** undefined: no memory limit (disk use allowed) */
  memLimit?: number
  score?: (d: Document) => number
  strCmp?: StringCompare
  /** prefix of the memory-limit error, e.g. "Executor error during find command" */
  errorContext: string
}

export class Sort extends Stage {
  readonly name = 'SORT'
  private readonly items: Item[] = []
  private sorted = false
  private pos = 0
  private seq = 0
  private bytes = 0
  private totalBytes = 0

  constructor (
    private readonly ctx: ExecContext,
    child: Stage,
    private readonly opts: SortOptions
  ) {
    super()
    this.children.push(child)
  }

  private compare (x: Item, y: Item): number {
    const { keys, score, strCmp } = this.opts
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]
      const c =
        k.meta === 'textScore'
          ? (score?.(y.doc) ?? 0) - (score?.(x.doc) ?? 0)
          : cmpSortValues(x.key[j], y.key[j], strCmp) * k.dir
      if (c !== 0) return c
    }
    return x.seq - y.seq
  }

  protected doWork (): WorkResult {
    if (this.sorted) return this.pos < this.items.length ? this.items[this.pos++].row : EOF
    const r = this.children[0].work()
    if (r === NEED_TIME) return NEED_TIME
    if (r === EOF) {
      if (this.opts.limit === 0) this.items.sort((a, b) => this.compare(a, b))
      this.sorted = true
      return NEED_TIME
    }
    const doc = rowDoc(this.ctx, r)
    if (doc === undefined) return NEED_TIME
    const item: Item = {
      row: { ...r, doc },
      doc,
      seq: this.seq++,
      key: this.opts.keys.map((k) => (k.meta === undefined ? sortValue(doc, k.path, k.dir, this.opts.strCmp) : null))
    }
    this.add(item)
    return NEED_TIME
  }

  private add (item: Item): void {
    const { limit } = this.opts
    const size = docSize(item.doc)
    this.totalBytes += size
    if (limit === 0) {
      this.items.push(item)
      this.bytes += size
    } else {
      // Top-k: a sorted array of at most `limit` items (binary insertion).
      if (this.items.length === limit && this.compare(item, this.items[limit - 1]) >= 0) return
      let lo = 0
      let hi = this.items.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (this.compare(item, this.items[mid]) < 0) hi = mid
        else lo = mid + 1
      }
      this.items.splice(lo, 0, item)
      this.bytes += size
      if (this.items.length > limit) this.bytes -= docSize((this.items.pop() as Item).doc)
    }
    if (this.opts.memLimit !== undefined && this.bytes > this.opts.memLimit) {
      throw new CommandError(
        Codes.QueryExceededMemoryLimitNoDiskUseAllowed,
        'QueryExceededMemoryLimitNoDiskUseAllowed',
        `${this.opts.errorContext} :: caused by :: Sort exceeded memory limit of ${this.opts.memLimit} bytes, but did not opt in to external sorting.`
      )
    }
  }

  describe (): Document {
    const sortPattern: Document = {}
    for (const k of this.opts.keys) sortPattern[k.path] = k.meta === 'textScore' ? { $meta: 'textScore' } : k.dir
    const out: Document = { sortPattern, memLimit: this.opts.memLimit ?? SORT_MEMORY_LIMIT }
    if (this.opts.limit > 0) out.limitAmount = this.opts.limit
    out.type = 'simple'
    return out
  }

  override counters (): Document {
    return { totalDataSizeSorted: this.totalBytes, usedDisk: false, spills: 0 }
  }
}

/** Merges index scans whose rows each come in sort order; the sort keys are index fields. */
export class SortMerge extends Stage {
  readonly name = 'SORT_MERGE'
  private readonly heads: Array<Row | undefined>
  private readonly done: boolean[]

  constructor (
    children: IndexScan[],
    private readonly sortPattern: Document,
    private readonly fieldPos: number[],
    private readonly dirs: Array<1 | -1>,
    private readonly strCmp?: StringCompare
  ) {
    super()
    this.children.push(...children)
    this.heads = children.map(() => undefined)
    this.done = children.map(() => false)
  }

  protected doWork (): WorkResult {
    // Fill one missing head per work, as mongod's merge sort does.
    for (let i = 0; i < this.children.length; i++) {
      if (this.heads[i] !== undefined || this.done[i]) continue
      const r = this.children[i].work()
      if (r === EOF) this.done[i] = true
      else if (r !== NEED_TIME) this.heads[i] = r
      return NEED_TIME
    }
    let best = -1
    for (let i = 0; i < this.heads.length; i++) {
      const h = this.heads[i]
      if (h === undefined) continue
      if (best === -1 || this.compare(h, this.heads[best] as Row) < 0) best = i
    }
    if (best === -1) return EOF
    const row = this.heads[best] as Row
    this.heads[best] = undefined
    return row
  }

  private compare (a: Row, b: Row): number {
    for (let j = 0; j < this.fieldPos.length; j++) {
      const p = this.fieldPos[j]
      const c = compareKeyValues((a.entry as unknown[])[p], (b.entry as unknown[])[p], this.strCmp)
      if (c !== 0) return c * this.dirs[j]
    }
    return 0
  }

  describe (): Document {
    return { sortPattern: this.sortPattern }
  }
}
