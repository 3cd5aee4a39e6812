/** FETCH, SKIP and LIMIT: the stages between a scan and the client. */
import type { Document } from 'bson'
import { Stage, NEED_TIME, EOF, type ExecContext, type WorkResult } from './stage.js'

export class Fetch extends Stage {
  readonly name = 'FETCH'
  private docs = 0

  constructor (
    private readonly ctx: ExecContext,
    child: Stage,
    private readonly matcher: ((d: Document) => boolean) | undefined,
    private readonly filterDoc: Document | undefined
  ) {
    super()
    this.children.push(child)
  }

  protected doWork (): WorkResult {
    const r = this.children[0].work()
    if (r === NEED_TIME || r === EOF) return r
    // A key whose document changed or went away since the scan saw it (between batches): skip.
    const doc = this.ctx.coll.records.get(r.rid)
    if (doc === undefined) return NEED_TIME
    this.docs++
    this.ctx.coll.stats.scannedObjects++
    this.ctx.deadline.tick()
    if (this.matcher !== undefined && !this.matcher(doc)) return NEED_TIME
    return { rid: r.rid, doc, entry: r.entry }
  }

  override get docsExamined (): number {
    return this.docs + super.docsExamined
  }

  describe (): Document {
    return this.filterDoc !== undefined && Object.keys(this.filterDoc).length > 0 ? { filter: this.filterDoc } : {}
  }

  override counters (): Document {
    return { docsExamined: this.docs, alreadyHasObj: 0 }
  }
}

export class Skip extends Stage {
  readonly name = 'SKIP'
  private skipped = 0

  constructor (
    child: Stage,
    private readonly amount: number
  ) {
    super()
    this.children.push(child)
  }

  protected doWork (): WorkResult {
    const r = this.children[0].work()
    if (r === NEED_TIME || r === EOF) return r
    if (this.skipped < this.amount) {
      this.skipped++
      return NEED_TIME
    }
    return r
  }

  describe (): Document {
    return { skipAmount: this.amount }
  }
}

export class Limit extends Stage {
  readonly name = 'LIMIT'
  private returned = 0

  constructor (
    child: Stage,
    private readonly amount: number
  ) {
    super()
    this.children.push(child)
  }

  protected doWork (): WorkResult {
    // Stop before asking the child for more: a page of 20 examines exactly 20 keys.
    if (this.returned >= this.amount) return EOF
    const r = this.children[0].work()
    if (r !== NEED_TIME && r !== EOF) this.returned++
    return r
  }

  describe (): Document {
    return { limitAmount: this.amount }
  }
}
