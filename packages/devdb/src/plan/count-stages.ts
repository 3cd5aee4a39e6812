/**
 * COUNT (the count command's root: counts its child's rows, applying skip and limit) and
 * COUNT_SCAN (counts the keys of one index range without fetching documents; on a non-multikey
 * index by two rank queries, so a tenant's count costs the same at any size).
 */
import type { Document } from 'bson'
import type { IndexDef, IndexEntry } from '../engine/index-def.js'
import { Edge } from '../bson/key-compare.js'
import { rankBelow } from '../engine/btree-rank.js'
import { formatKeyValue } from './explain-format.js'
import type { KeyRange } from './scan-ranges.js'
import { Stage, NEED_TIME, EOF, type ExecContext, type WorkResult } from './stage.js'
import { indexDescription } from './scan-stages.js'

export class Count extends Stage {
  readonly name = 'COUNT'
  n = 0
  private skipped = 0

  constructor (
    child: Stage,
    private readonly skip: number,
    private readonly limit: number
  ) {
    super()
    this.children.push(child)
  }

  protected doWork (): WorkResult {
    if (this.limit > 0 && this.n >= this.limit) return EOF
    const child = this.children[0]
    if (child instanceof CountScan) {
      const r = child.work()
      this.n = Math.max(0, child.count - this.skip)
      if (this.limit > 0) this.n = Math.min(this.n, this.limit)
      return r === EOF ? EOF : NEED_TIME
    }
    const r = child.work()
    if (r === EOF) return EOF
    if (r === NEED_TIME) return NEED_TIME
    if (this.skipped < this.skip) this.skipped++
    else this.n++
    return NEED_TIME
  }

  describe (): Document {
    return {}
  }

  override counters (): Document {
    return { nCounted: this.n, nSkipped: this.skipped }
  }
}

export class CountScan extends Stage {
  readonly name = 'COUNT_SCAN'
  count = 0
  private keys = 0

  constructor (
    private readonly ctx: ExecContext,
    readonly index: IndexDef,
    private readonly range: KeyRange
  ) {
    super()
  }

  protected doWork (): WorkResult {
    if (this.isEOF) return EOF
    const { start, end } = this.range
    if (!this.index.isMultikey) {
      this.count = rankBelow(this.index.tree, end) - rankBelow(this.index.tree, start)
      this.keys = this.count
    } else {
      const seen = new Set<number>()
      const n = this.index.fields.length
      this.index.tree.forRange(start, end, true, (k: IndexEntry) => {
        this.keys++
        this.ctx.deadline.tick()
        seen.add(k[n] as number)
      })
      this.count = seen.size
    }
    this.ctx.coll.stats.scanned += this.keys
    this.ctx.deadline.check()
    return EOF
  }

  override get keysExamined (): number {
    return this.keys
  }

  describe (): Document {
    const shown = (e: IndexEntry): Document => {
      const out: Document = {}
      this.index.fields.forEach((f, i) => {
        out[f] = displayKey(e[i])
      })
      return out
    }
    return {
      ...indexDescription(this.index),
      indexBounds: {
        startKey: shown(this.range.start),
        startKeyInclusive: true,
        endKey: shown(this.range.end),
        endKeyInclusive: true
      }
    }
  }

  override counters (): Document {
    return { keysExamined: this.keys }
  }
}

function displayKey (v: unknown): unknown {
  return v instanceof Edge ? formatKeyValue(v) : v
}
