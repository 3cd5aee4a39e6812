/**
 * The cursor of one change stream: reads the history after its position, keeps what is in its
 * scope, turns each entry into an event, runs the pipeline, and after an invalidating change
 * returns the `invalidate` event and ends. `postBatchResumeToken` is where it has read to.
 */
import { serialize, type Document, type Timestamp } from 'bson'
import type { Catalog } from '../engine/catalog.js'
import type { ClusterClock } from '../txn/cluster-time.js'
import type { ResultSource, TailSource } from '../engine/cursors.js'
import { CommandError } from '../errors.js'
import type { ChangeEntry, ChangeHistory } from './history.js'
import { changeEvent, eventHead } from './event.js'
import type { Pushdown } from './pushdown.js'
import { inScope, invalidates, type Scope } from './scope.js'
import type { ChangeStreamSpec } from './spec.js'
import { encodeToken } from './token.js'

export interface SourceOptions {
  history: ChangeHistory
  scope: Scope
  spec: ChangeStreamSpec
  catalog: Catalog
  clock: ClusterClock
  transform?: (event: Document) => Document | undefined
  /** What the pipeline lets the source skip (see pushdown.ts) */
  pushdown?: Pushdown
  start: number
}

export class ChangeStreamSource implements ResultSource {
  private pos: number
  private posTime: Timestamp | undefined
  private invalidatedBy: ChangeEntry | undefined
  private ended = false
  readonly tail: TailSource

  constructor (private readonly o: SourceOptions) {
    this.pos = o.start
    this.tail = {
      ended: () => this.ended,
      cursorFields: (batch, held) => ({
        postBatchResumeToken: held ? (batch[batch.length - 1]._id as Document) : this.highWaterMark()
      }),
      awaitData: async (ms) => {
        await this.awaitData(ms)
      }
    }
  }

  next (): Document | undefined {
    while (!this.ended) {
      if (this.invalidatedBy !== undefined) {
        const e = this.invalidatedBy
        this.ended = true
        return this.emit(
          { _id: this.token(e, true), operationType: 'invalidate', clusterTime: e.time, wallTime: e.wallTime },
          true
        )
      }
      const e = this.o.history.after(this.pos)
      if (e === undefined) return undefined
      this.pos = e.seq
      this.posTime = e.time
      if (!inScope(this.o.scope, e)) continue
      const token = this.token(e, false)
      if (this.droppedByPrefilter(e, token)) continue
      if (invalidates(this.o.scope, e)) this.invalidatedBy = e
      const out = this.emit(changeEvent(e, token, this.o.spec, this.o.catalog, this.o.pushdown?.needs), false)
      if (out !== undefined) return out
    }
    return undefined
  }

  /** A change this stream never returns: out of its scope, or dropped by the pipeline's leading match before being built. */
  private passedOver (e: ChangeEntry): boolean {
    return !inScope(this.o.scope, e) || this.droppedByPrefilter(e)
  }

  /** The leading match's verdict on the event's head (its token encoded only when it is tested). */
  private droppedByPrefilter (e: ChangeEntry, token?: Document): boolean {
    const prefilter = this.o.pushdown?.prefilter
    if (prefilter === undefined || invalidates(this.o.scope, e)) return false
    const head = eventHead(e, token ?? this.token(e, false), this.o.catalog, this.o.spec.fullDocument === 'default')
    return !prefilter(head)
  }

  private token (e: ChangeEntry, invalidate: boolean): Document {
    return encodeToken({ time: e.time, seq: e.seq, invalidate, epoch: this.o.history.epoch })
  }

  private highWaterMark (): Document {
    const caughtUp = this.o.history.after(this.pos) === undefined
    const time = caughtUp || this.posTime === undefined ? this.o.clock.last : this.posTime
    return encodeToken({ time, seq: this.pos, invalidate: this.ended, epoch: this.o.history.epoch })
  }

  /** The pipeline's output for an event; it must keep the event's `_id`, the resume token. */
  private emit (event: Document, always: boolean): Document | undefined {
    if (this.o.transform === undefined) return event
    // The prefilter passed it and the projection keeps `_id`: the pipeline's output, directly.
    const projected = always ? undefined : this.o.pushdown?.project?.(event)
    if (projected !== undefined) return projected
    const out = this.o.transform(event)
    if (out === undefined) return always ? event : undefined
    if (!sameValue(out._id, event._id)) {
      throw new CommandError(
        280,
        'ChangeStreamFatalError',
        'Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.',
        { errorLabels: ['NonResumableChangeStreamError'] }
      )
    }
    return out
  }

  /**
   * Waits until an event the stream may return is there (or ms pass); changes out of scope or
   * dropped by the leading match are stepped over meanwhile — as mongod's getMore waits out oplog
   * entries its filter drops, rather than answering an empty batch for each.
   */
  private async awaitData (ms: number): Promise<void> {
    const until = Date.now() + ms
    while (!this.ended && this.invalidatedBy === undefined) {
      let e = this.o.history.after(this.pos)
      while (e !== undefined && this.passedOver(e)) {
        this.pos = e.seq
        this.posTime = e.time
        e = this.o.history.after(this.pos)
      }
      const left = until - Date.now()
      if (e !== undefined || left <= 0) return
      await this.o.history.wait(left)
    }
  }
}

function sameValue (a: unknown, b: unknown): boolean {
  return a !== undefined && Buffer.from(serialize({ v: a })).equals(serialize({ v: b }))
}
