/**
 * Runs a plan. With several candidates it first runs mongod's trial: each plan works in turn
 * until one reaches EOF or returns a first batch (101 rows, or the limit), within
 * max(10 000, 0.3 × collection size) works; the most productive (rows per work, EOF first,
 * then the planner's ranking) wins and keeps the rows it already produced.
 */
import type { Document } from 'bson'
import { EOF, NEED_TIME, rowDoc, type ExecContext, type Row, type Stage } from './stage.js'
import type { Candidate } from './planner.js'

const TRIAL_WORKS = 10_000
const TRIAL_FRACTION = 0.3
const TRIAL_RESULTS = 101
/** A cached plan may use this many times its trial's works before its first batch, then it is replanned. */
const REPLAN_FACTOR = 10

export class PlanExecutor {
  readonly root: Stage
  readonly rejected: Stage[]
  private readonly buffered: Row[]
  private eof = false
  nReturned = 0
  /** milliseconds spent working, for explain */
  millis = 0
  /** the index of the winning plan when a trial chose it among several (what the plan cache keeps) */
  readonly chosenIndex?: string
  readonly fromCache: boolean

  constructor (
    readonly ctx: ExecContext,
    candidates: Candidate[],
    limit: number,
    cachedWorks?: number
  ) {
    const started = performance.now()
    this.fromCache = cachedWorks !== undefined
    if (cachedWorks !== undefined) {
      this.root = candidates[0].root
      this.rejected = []
      this.buffered = runCached(candidates[0], wantedRows(limit), cachedWorks * REPLAN_FACTOR)
      this.eof = this.root.isEOF && this.buffered.length === 0
    } else if (candidates.length === 1) {
      this.root = candidates[0].root
      this.rejected = []
      this.buffered = []
    } else {
      const { winner, rows } = trial(ctx, candidates, wantedRows(limit))
      this.root = candidates[winner].root
      this.chosenIndex = candidates[winner].index?.name
      this.rejected = candidates.filter((_, i) => i !== winner).map((c) => c.root)
      this.buffered = rows
      this.eof = this.root.isEOF && rows.length === 0
    }
    this.millis += performance.now() - started
  }

  /** The next result document, or undefined at the end. */
  next (): Document | undefined {
    return this.nextWithin(undefined) as Document | undefined
  }

  /**
   * The next result document, undefined at the end, or YIELDED when the slice is used up (its
   * time passed after at least its minimum of works) while the plan was still looking — so a long
   * scan lets the server serve others.
   */
  nextWithin (slice: TimeSlice | undefined): Document | undefined | typeof YIELDED {
    const started = performance.now()
    try {
      while (true) {
        const buffered = this.buffered.shift()
        if (buffered !== undefined) {
          const d = rowDoc(this.ctx, buffered)
          if (d === undefined) continue
          this.nReturned++
          return d
        }
        if (this.eof) return undefined
        const r = this.root.work()
        if (r === NEED_TIME) {
          if (
            slice !== undefined &&
            ++slice.works >= slice.minWorks &&
            (slice.works & 15) === 0 &&
            performance.now() >= slice.until
          ) {
            return YIELDED
          }
          continue
        }
        if (r === EOF) {
          this.eof = true
          return undefined
        }
        const d = rowDoc(this.ctx, r)
        if (d === undefined) continue
        this.nReturned++
        return d
      }
    } finally {
      this.millis += performance.now() - started
    }
  }

  /** Runs to the end (for COUNT roots, which return no rows). */
  drain (): void {
    while (this.next() !== undefined);
  }

  get isEOF (): boolean {
    return this.eof && this.buffered.length === 0
  }

  save (): void {
    this.root.save()
  }
}

/** What nextWithin returns when its time slice ran out before the next result. */
export const YIELDED = Symbol('yielded')

/** A batch's share of the engine: works counted across the batch's nextWithin calls. */
export interface TimeSlice {
  until: number
  minWorks: number
  works: number
}

function wantedRows (limit: number): number {
  return limit > 0 ? Math.min(limit, TRIAL_RESULTS) : TRIAL_RESULTS
}

/** Thrown when a cached plan overruns its budget: the caller replans. */
export class CachedPlanTooSlow extends Error {}

function runCached (c: Candidate, wanted: number, budget: number): Row[] {
  const rows: Row[] = []
  while (rows.length < wanted) {
    if (c.root.works >= budget) throw new CachedPlanTooSlow()
    const r = c.root.work()
    if (r === EOF) break
    if (r !== NEED_TIME) rows.push(r)
  }
  return rows
}

function trial (ctx: ExecContext, candidates: Candidate[], wanted: number): { winner: number; rows: Row[] } {
  const maxWorks = Math.max(TRIAL_WORKS, Math.floor(TRIAL_FRACTION * ctx.coll.size))
  const rows: Row[][] = candidates.map(() => [])
  const done = candidates.map(() => false)
  let stop = false
  for (let w = 0; w < maxWorks && !stop; w++) {
    for (let i = 0; i < candidates.length && !stop; i++) {
      if (done[i]) continue
      const r = candidates[i].root.work()
      if (r === EOF) {
        done[i] = true
        stop = true
      } else if (r !== NEED_TIME) {
        rows[i].push(r)
        if (rows[i].length >= wanted) stop = true
      }
    }
  }
  let winner = 0
  let best = -Infinity
  candidates.forEach((c, i) => {
    const works = Math.max(1, c.root.works)
    const score = 1 + rows[i].length / works + (done[i] ? 1 : 0) + c.rank * 1e-6
    if (score > best) {
      best = score
      winner = i
    }
  })
  return { winner, rows: rows[winner] }
}
