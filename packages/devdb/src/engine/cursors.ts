/**
 * Server-side cursors: results are materialized when the cursor is opened and handed out in
 * batches by getMore. Idle cursors are reaped after `cursorTimeoutMs` (MongoDB: 10 minutes).
 */
import { Long, type Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { MAX_BSON_OBJECT_SIZE } from '../wire/messages.js'
import { calculateObjectSize } from 'bson'

interface OpenCursor { id: number, ns: string, docs: Document[], pos: number, lastUsed: number }

const DEFAULT_FIRST_BATCH = 101
const BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024

export class CursorManager {
  private readonly open = new Map<number, OpenCursor>()
  private readonly timer: NodeJS.Timeout
  constructor (private readonly timeoutMs: number) {
    this.timer = setInterval(() => { this.reap() }, Math.min(60_000, Math.max(50, timeoutMs / 4)))
    this.timer.unref()
  }

  get size (): number { return this.open.size }

  reap (now = Date.now()): void {
    for (const [id, c] of this.open) if (now - c.lastUsed > this.timeoutMs) this.open.delete(id)
  }

  private newId (): number {
    let id: number
    do id = Math.floor(Math.random() * 2 ** 52) + 1; while (this.open.has(id))
    return id
  }

  /** Builds the `cursor` reply for a command result; keeps a server cursor only if documents remain. */
  firstBatch (ns: string, docs: Document[], batchSize: number | undefined, singleBatch = false): Document {
    const n = batchSize === undefined ? DEFAULT_FIRST_BATCH : batchSize
    const batch = takeBatch(docs, 0, n === 0 && batchSize !== undefined ? 0 : n)
    let id = 0
    if (!singleBatch && batch.length < docs.length) {
      id = this.newId()
      this.open.set(id, { id, ns, docs, pos: batch.length, lastUsed: Date.now() })
    }
    return { cursor: { firstBatch: batch, id: Long.fromNumber(id), ns }, ok: 1 }
  }

  getMore (id: number, ns: string, batchSize: number | undefined): Document {
    const c = this.open.get(id)
    if (c === undefined) throw new CommandError(Codes.CursorNotFound, 'CursorNotFound', `cursor id ${id} not found`)
    if (c.ns !== ns) throw new CommandError(Codes.Unauthorized, 'Unauthorized', `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${c.ns}`)
    const batch = takeBatch(c.docs, c.pos, batchSize === undefined || batchSize === 0 ? Infinity : batchSize)
    c.pos += batch.length
    c.lastUsed = Date.now()
    let outId = id
    if (c.pos >= c.docs.length) {
      this.open.delete(id)
      outId = 0
    }
    return { cursor: { nextBatch: batch, id: Long.fromNumber(outId), ns }, ok: 1 }
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

/** Up to n documents from pos, keeping the reply under the 16 MB BSON limit (always at least one). */
function takeBatch (docs: Document[], pos: number, n: number): Document[] {
  const out: Document[] = []
  let bytes = 0
  for (let i = pos; i < docs.length && out.length < n; i++) {
    const size = calculateObjectSize(docs[i])
    if (out.length > 0 && bytes + size > BATCH_BYTES) break
    bytes += size
    out.push(docs[i])
  }
  return out
}
