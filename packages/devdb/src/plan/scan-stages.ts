/** Leaf stages: COLLSCAN over the record tree, IXSCAN over an index's key ranges. */
import type { Document } from 'bson'
import type { IndexDef, IndexEntry } from '../engine/index-def.js'
import { inIntervals, type Interval } from './bounds.js'
import { layoutScan, type ScanLayout } from './scan-ranges.js'
import { Stage, NEED_TIME, EOF, type ExecContext, type WorkResult } from './stage.js'
import { formatBounds } from './explain-format.js'

export class CollScan extends Stage {
  readonly name = 'COLLSCAN'
  private iter: Iterator<[number, Document]> | undefined
  private lastRid: number | undefined
  private docs = 0

  constructor (
    private readonly ctx: ExecContext,
    private readonly matcher: (d: Document) => boolean,
    private readonly filterDoc: Document | undefined,
    readonly direction: 1 | -1
  ) {
    super()
  }

  protected doWork (): WorkResult {
    let iter = this.iter
    if (iter === undefined) {
      const r = this.ctx.coll.records
      iter = this.iter =
        this.direction === 1
          ? r.entries(this.lastRid === undefined ? undefined : this.lastRid + 1)
          : r.entriesReversed(this.lastRid, undefined, this.lastRid !== undefined)
    }
    const n = iter.next()
    if (n.done === true) return EOF
    const [rid, doc] = n.value
    this.lastRid = rid
    this.docs++
    this.ctx.coll.stats.scannedObjects++
    this.ctx.deadline.tick()
    return this.matcher(doc) ? { rid, doc } : NEED_TIME
  }

  override save (): void {
    this.iter = undefined
  }

  override get docsExamined (): number {
    return this.docs
  }

  describe (): Document {
    const out: Document = {}
    if (this.filterDoc !== undefined && Object.keys(this.filterDoc).length > 0) out.filter = this.filterDoc
    out.direction = this.direction === 1 ? 'forward' : 'backward'
    return out
  }

  override counters (): Document {
    return { docsExamined: this.docs }
  }
}

export class IndexScan extends Stage {
  readonly name = 'IXSCAN'
  readonly layout: ScanLayout
  private rangeIdx = 0
  private iter: Iterator<[IndexEntry, undefined]> | undefined
  private last: IndexEntry | undefined
  private readonly seen: Set<number> | undefined
  private keys = 0
  private seeks = 0
  private dupsDropped = 0

  constructor (
    private readonly ctx: ExecContext,
    readonly index: IndexDef,
    readonly bounds: Interval[][],
    readonly direction: 1 | -1
  ) {
    super()
    this.layout = layoutScan(index, bounds)
    if (direction === -1) this.layout = { ...this.layout, ranges: [...this.layout.ranges].reverse() }
    if (index.isMultikey) this.seen = new Set()
  }

  protected doWork (): WorkResult {
    const { ranges, checked } = this.layout
    const tree = this.index.tree
    while (this.rangeIdx < ranges.length) {
      const range = ranges[this.rangeIdx]
      let iter = this.iter
      const resuming = iter === undefined && this.last !== undefined
      if (iter === undefined) {
        if (this.last === undefined) this.seeks++
        iter = this.iter =
          this.direction === 1
            ? tree.entries(this.last ?? range.start)
            : tree.entriesReversed(this.last ?? range.end, undefined, this.last !== undefined)
      }
      const n = iter.next()
      let entry = n.done === true ? undefined : n.value[0]
      // Resuming forward from the last key returns it again (if it still exists): skip it.
      if (
        resuming &&
        entry !== undefined &&
        this.last !== undefined &&
        this.direction === 1 &&
        tree._compare(entry, this.last) === 0
      ) {
        const again = iter.next()
        entry = again.done === true ? undefined : again.value[0]
      }
      const outside =
        entry === undefined ||
        (this.direction === 1 ? tree._compare(entry, range.end) > 0 : tree._compare(entry, range.start) < 0)
      if (outside) {
        this.rangeIdx++
        this.iter = undefined
        this.last = undefined
        continue
      }
      const e = entry as IndexEntry
      this.last = e
      this.keys++
      this.ctx.coll.stats.scanned++
      this.ctx.deadline.tick()
      if (!this.keyInBounds(e, checked)) return NEED_TIME
      const rid = e[this.index.fields.length] as number
      if (this.seen !== undefined) {
        if (this.seen.has(rid)) {
          this.dupsDropped++
          return NEED_TIME
        }
        this.seen.add(rid)
      }
      return { rid, entry: e }
    }
    return EOF
  }

  private keyInBounds (e: IndexEntry, checked: number[]): boolean {
    const cmp = this.index.collation?.compare
    for (const i of checked) if (!inIntervals(e[i], this.bounds[i], cmp)) return false
    return true
  }

  override save (): void {
    this.iter = undefined
  }

  override get keysExamined (): number {
    return this.keys
  }

  describe (): Document {
    return {
      ...indexDescription(this.index),
      direction: this.direction === 1 ? 'forward' : 'backward',
      indexBounds: formatBounds(this.index, this.bounds, this.direction)
    }
  }

  override counters (): Document {
    return {
      keysExamined: this.keys,
      seeks: this.seeks,
      dupsTested: this.seen !== undefined ? this.keys : 0,
      dupsDropped: this.dupsDropped
    }
  }
}

export function indexDescription (index: IndexDef): Document {
  const multiKeyPaths: Document = {}
  index.fields.forEach((f, i) => {
    multiKeyPaths[f] = index.multikey[i] ? [f] : []
  })
  const out: Document = { keyPattern: index.key, indexName: index.name }
  if (index.collation !== undefined) out.collation = index.collation.spec
  return {
    ...out,
    isMultiKey: index.isMultikey,
    multiKeyPaths,
    isUnique: index.unique,
    isSparse: index.sparse,
    isPartial: index.partial !== undefined,
    indexVersion: 2
  }
}
