/**
 * Execution stages in mongod's model: each `work()` call does one unit (examines one key or one
 * document) and returns a row, NEED_TIME (worked, nothing to return yet) or EOF. That makes
 * trial runs between candidate plans fair, lets LIMIT stop a scan after exactly the rows it
 * needs, and gives explain mongod's per-stage counters.
 */
import type { Document } from 'bson'
import type { Collection } from '../engine/collection.js'
import type { Deadline } from '../engine/deadline.js'
import type { IndexEntry } from '../engine/index-def.js'

export const NEED_TIME = Symbol('NEED_TIME')
export const EOF = Symbol('EOF')

export interface Row {
  rid: number
  doc?: Document
  entry?: IndexEntry
}
export type WorkResult = Row | typeof NEED_TIME | typeof EOF

export interface ExecContext {
  coll: Collection
  deadline: Deadline
}

export abstract class Stage {
  abstract readonly name: string
  works = 0
  advanced = 0
  needTime = 0
  isEOF = false
  readonly children: Stage[] = []

  work (): WorkResult {
    this.works++
    const r = this.doWork()
    if (r === NEED_TIME) this.needTime++
    else if (r === EOF) this.isEOF = true
    else this.advanced++
    return r
  }

  protected abstract doWork (): WorkResult

  /** Lets go of tree iterators before the engine serves another command (restored on the next work). */
  save (): void {
    for (const c of this.children) c.save()
  }

  /** The stage's own fields for explain (stage name and children are added by the caller). */
  abstract describe (): Document

  /** Execution counters of this stage for executionStats. */
  counters (): Document {
    return {}
  }

  get keysExamined (): number {
    return this.children.reduce((n, c) => n + c.keysExamined, 0)
  }

  get docsExamined (): number {
    return this.children.reduce((n, c) => n + c.docsExamined, 0)
  }

  explain (withStats: boolean): Document {
    const out: Document = { stage: this.name, ...this.describe() }
    if (withStats) {
      Object.assign(
        out,
        {
          nReturned: this.advanced,
          executionTimeMillisEstimate: 0,
          works: this.works,
          advanced: this.advanced,
          needTime: this.needTime,
          needYield: 0,
          saveState: 0,
          restoreState: 0,
          isEOF: this.isEOF ? 1 : 0
        },
        this.counters()
      )
    }
    if (this.children.length === 1) out.inputStage = this.children[0].explain(withStats)
    else if (this.children.length > 1) out.inputStages = this.children.map((c) => c.explain(withStats))
    return out
  }
}

/** Rows of a document (fetching it by record id when the child produced only an index key). */
export function rowDoc (ctx: ExecContext, row: Row): Document | undefined {
  return row.doc ?? ctx.coll.records.get(row.rid)
}
