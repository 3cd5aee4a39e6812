/**
 * Server-side cursors. A cursor hands out its results in batches; its source is either a
 * materialized array (aggregate, list commands) or a lazy one — a find's plan executor, which
 * works only as far as each batch needs and lets go of its tree iterators in between (mongod's
 * yield). Idle cursors are reaped after `cursorTimeoutMs` (MongoDB: 10 minutes).
 */
import { Long, type Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { MAX_BSON_OBJECT_SIZE } from '../wire/messages.js'
import { calculateObjectSize } from 'bson'
import { YIELDED, type TimeSlice } from '../plan/executor.js'

/**
 * A batch that has worked BATCH_SLICE_WORKS units (keys or documents examined without a result)
 * and BATCH_SLICE_MS is returned — possibly short or empty, the cursor staying open — so that one
 * long scan (an unindexed filter, an expensive $regex) does not hold the single-threaded engine:
 * the other connections are served between the client's getMores. The minimum of works keeps
 * ordinary batches (and small blocking sorts) whole on a slow machine.
 */
export const BATCH_SLICE_MS = 5
export const BATCH_SLICE_WORKS = 256

function slice (): TimeSlice {
  return { until: performance.now() + BATCH_SLICE_MS, minWorks: BATCH_SLICE_WORKS, works: 0 }
}

export interface ResultSource {
  /** the next document, undefined when there are no more, or YIELDED once the slice is used up */
  next: (slice?: TimeSlice) => Document | undefined | typeof YIELDED
  /** before a getMore's batch (may throw, e.g. when the budget or the collection is gone) */
  resume?: () => void
  /** after a batch, when the cursor stays open */
  pause?: () => void
  /** turns a batch of stored documents into what the client gets (e.g. a projection) */
  project?: (docs: Document[]) => Document[]
  /** a tailable, awaitData cursor (a change stream): open while not ended, even with nothing to return */
  tail?: TailSource
}

export interface TailSource {
  ended: () => boolean
  /** fields of the cursor reply after a batch (`postBatchResumeToken`); held: a document was kept for the next batch */
  cursorFields: (batch: Document[], held: boolean) => Document
  /** resolves when there may be something new, or after ms (getMore's `maxTimeMS`) */
  awaitData: (ms: number) => Promise<void>
}

export function arraySource (docs: Document[]): ResultSource {
  let i = 0
  return { next: () => (i < docs.length ? docs[i++] : undefined) }
}

interface OpenCursor {
  id: number
  ns: string
  source: ResultSource
  pending?: Document
  lastUsed: number
  yielded?: boolean
}

const DEFAULT_FIRST_BATCH = 101
const BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024

export class CursorManager {
  private readonly open = new Map<number, OpenCursor>()
  private readonly timer: NodeJS.Timeout
  constructor (private readonly timeoutMs: number) {
    this.timer = setInterval(
      () => {
        this.reap()
      },
      Math.min(60_000, Math.max(50, timeoutMs / 4))
    )
    this.timer.unref()
  }

  get size (): number {
    return this.open.size
  }

  /** the tailable side of an open cursor, if it is one */
  tailOf (id: number): TailSource | undefined {
    return this.open.get(id)?.source.tail
  }

  reap (now = Date.now()): void {
    for (const [id, c] of this.open) if (now - c.lastUsed > this.timeoutMs) this.open.delete(id)
  }

  private newId (): number {
    let id: number
    do id = Math.floor(Math.random() * 2 ** 52) + 1
    while (this.open.has(id))
    return id
  }

  /** Builds the `cursor` reply for a command result; keeps a server cursor only if documents remain. */
  firstBatch (
    ns: string,
    results: Document[] | ResultSource,
    batchSize: number | undefined,
    singleBatch = false
  ): Document {
    const source = Array.isArray(results) ? arraySource(results) : results
    const n = batchSize === undefined ? DEFAULT_FIRST_BATCH : batchSize
    const cursor: OpenCursor = { id: 0, ns, source, lastUsed: Date.now() }
    // singleBatch must hold every result: no time slice there
    const batch = takeBatch(cursor, n, singleBatch ? undefined : slice())
    let id = 0
    if (!singleBatch && hasMore(cursor)) {
      id = this.newId()
      cursor.id = id
      source.pause?.()
      this.open.set(id, cursor)
    }
    const extra = source.tail?.cursorFields(batch, cursor.pending !== undefined)
    return { cursor: { firstBatch: source.project?.(batch) ?? batch, id: Long.fromNumber(id), ns, ...extra }, ok: 1 }
  }

  getMore (id: number, ns: string, batchSize: number | undefined): Document {
    const c = this.open.get(id)
    if (c === undefined) throw new CommandError(Codes.CursorNotFound, 'CursorNotFound', `cursor id ${id} not found`)
    if (c.ns !== ns) {
      throw new CommandError(
        Codes.Unauthorized,
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${c.ns}`
      )
    }
    let batch: Document[]
    try {
      c.source.resume?.()
      batch = takeBatch(c, batchSize === undefined || batchSize === 0 ? Infinity : batchSize, slice())
    } catch (e) {
      // mongod kills a cursor whose getMore failed (time limit, collection dropped…).
      this.open.delete(id)
      throw e
    }
    c.lastUsed = Date.now()
    let outId = id
    if (!hasMore(c)) {
      this.open.delete(id)
      outId = 0
    } else c.source.pause?.()
    const extra = c.source.tail?.cursorFields(batch, c.pending !== undefined)
    return {
      cursor: { nextBatch: c.source.project?.(batch) ?? batch, id: Long.fromNumber(outId), ns, ...extra },
      ok: 1
    }
  }

  kill (ids: number[]): Document {
    const cursorsKilled: Long[] = []
    const cursorsNotFound: Long[] = []
    for (const id of ids) {
      if (this.open.delete(id)) cursorsKilled.push(Long.fromNumber(id))
      else cursorsNotFound.push(Long.fromNumber(id))
    }
    return { cursorsKilled, cursorsNotFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 }
  }

  close (): void {
    clearInterval(this.timer)
    this.open.clear()
  }
}

/**
 * Up to n documents, keeping the reply under the 16 MB BSON limit (always at least one unless
 * the time slice ends first; sizes of stored documents, which a projection only shrinks).
 */
function takeBatch (c: OpenCursor, n: number, budget: TimeSlice | undefined): Document[] {
  const out: Document[] = []
  let bytes = 0
  c.yielded = false
  while (out.length < n) {
    const d = c.pending ?? c.source.next(budget)
    c.pending = undefined
    if (d === YIELDED) {
      c.yielded = true
      break
    }
    if (d === undefined) break
    const size = calculateObjectSize(d)
    if (out.length > 0 && bytes + size > BATCH_BYTES) {
      c.pending = d
      break
    }
    bytes += size
    out.push(d)
  }
  return out
}

/** Whether documents remain: looks one ahead (kept for the next batch); a yielded scan has not ended. */
function hasMore (c: OpenCursor): boolean {
  if (c.pending !== undefined || c.yielded === true) return true
  // never looked ahead: the next event would be consumed past the batch's resume token
  if (c.source.tail !== undefined) return !c.source.tail.ended()
  const d = c.source.next(slice())
  if (d === YIELDED) {
    c.yielded = true
    return true
  }
  c.pending = d
  return c.pending !== undefined
}
