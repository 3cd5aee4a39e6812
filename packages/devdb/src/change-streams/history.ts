/**
 * The change streams' history: every committed change as an entry, in commit order, like
 * mongod's oplog — and like the oplog, capped: past `maxBytes` (an estimate of the documents the
 * entries keep alive) the oldest entries are dropped, and a stream that would resume before them
 * gets ChangeStreamHistoryLost (286). It lives in memory: after a restart it starts empty (resume
 * tokens carry the server's epoch, so an older one is refused rather than misread).
 */
import { randomBytes } from 'node:crypto'
import { calculateObjectSize, type Document, type Timestamp } from 'bson'

export type ChangeOp = 'insert' | 'update' | 'replace' | 'delete' | 'drop' | 'rename' | 'dropDatabase'

export interface ChangeEntry {
  seq: number
  time: Timestamp
  wallTime: Date
  op: ChangeOp
  db: string
  coll?: string
  /** the changed document's `_id` (insert, update, replace, delete) */
  id?: unknown
  /** the document before the change (update, replace, delete) */
  pre?: Document
  /** the document after it (insert, update, replace) */
  post?: Document
  /** the collection had `changeStreamPreAndPostImages` enabled when the change was written */
  images: boolean
  /** rename: the new namespace */
  to?: { db: string; coll: string }
  /** a transaction's changes carry its session and number, as mongod's events do */
  txn?: { lsid: unknown; txnNumber: unknown }
  bytes: number
  /** written in memory, journal record not yet on disk: invisible to streams until then */
  pending: boolean
}

export type NewChange = Omit<ChangeEntry, 'seq' | 'bytes' | 'pending'>

const ENTRY_OVERHEAD = 160

export class ChangeHistory {
  /** identifies this server run in resume tokens */
  readonly epoch = randomBytes(4).toString('hex')
  private entries: ChangeEntry[] = []
  /** entries[0 .. head) were evicted and wait for the array to be compacted */
  private head = 0
  private bytes = 0
  private seq = 0
  /** seq and time of the newest evicted entry (0 / undefined: none evicted yet) */
  evictedThrough = 0
  evictedTime: Timestamp | undefined
  private waiters = new Set<() => void>()

  constructor (readonly maxBytes: number) {}

  /** seq of the newest entry, pending ones included */
  get latestSeq (): number {
    return this.seq
  }

  get size (): number {
    return this.entries.length - this.head
  }

  append (changes: NewChange[], pending: boolean): number {
    for (const c of changes) {
      const bytes =
        ENTRY_OVERHEAD +
        (c.pre !== undefined ? calculateObjectSize(c.pre) : 0) +
        (c.post !== undefined ? calculateObjectSize(c.post) : 0)
      this.entries.push({ ...c, seq: ++this.seq, bytes, pending })
      this.bytes += bytes
    }
    this.evict()
    if (!pending && changes.length > 0) this.wake()
    return this.seq
  }

  /** The entries up to `seq` are on disk: streams may see them. */
  settleThrough (seq: number): void {
    let changed = false
    // pending entries are always the newest ones
    for (let i = this.entries.length - 1; i >= this.head; i--) {
      const e = this.entries[i]
      if (e.seq > seq) continue
      if (!e.pending) break
      e.pending = false
      changed = true
    }
    if (changed) this.wake()
  }

  /** Their journal write failed and the writes were undone: so are their entries. */
  dropPending (): void {
    while (this.entries.length > this.head && this.entries[this.entries.length - 1].pending) {
      const e = this.entries.pop() as ChangeEntry
      this.bytes -= e.bytes
    }
  }

  /** The first visible entry after `seq`, or undefined (nothing newer, or only pending ones). */
  after (seq: number): ChangeEntry | undefined {
    let lo = this.head
    let hi = this.entries.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.entries[mid].seq <= seq) lo = mid + 1
      else hi = mid
    }
    const e = this.entries[lo]
    return e === undefined || e.pending ? undefined : e
  }

  /** seq of the newest retained entry written before `time` (the start of `startAtOperationTime`). */
  seqBefore (time: Timestamp): number {
    let lo = this.head
    let hi = this.entries.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.entries[mid].time.lessThan(time)) lo = mid + 1
      else hi = mid
    }
    return lo > this.head ? this.entries[lo - 1].seq : this.evictedThrough
  }

  /** Resolves at the next visible change, or after `ms`. */
  async wait (ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.waiters.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.waiters.add(done)
    })
  }

  /** Ends every wait (server shutdown). */
  close (): void {
    this.wake()
  }

  private wake (): void {
    for (const w of [...this.waiters]) w()
  }

  private evict (): void {
    while (this.bytes > this.maxBytes && this.entries.length - this.head > 1 && !this.entries[this.head].pending) {
      const e = this.entries[this.head++]
      this.bytes -= e.bytes
      this.evictedThrough = e.seq
      this.evictedTime = e.time
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
  }
}
