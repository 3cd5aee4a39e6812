/**
 * Sizes of collections for dbStats, collStats and $collStats, measured without holding the
 * engine: before such a command runs, each collection it reports is snapshotted (O(1),
 * copy-on-write) and its documents and index entries are summed in slices of at most
 * BATCH_SLICE_MS, other connections' commands running in between. The command then reports the
 * sizes as of its start. Measured directly (no slices) when nothing was prepared.
 */
import { calculateObjectSize, type Document } from 'bson'
import type { Collection } from '../engine/collection.js'
import type { ServerState } from '../commands/context.js'
import { BATCH_SLICE_MS } from '../engine/cursors.js'
import { isPlainDoc } from '../bson/paths.js'
import { sameCommand } from './command-aliases.js'

export interface Sizes {
  count: number
  size: number
  indexSizes: Record<string, number>
  totalIndexSize: number
}

/** Drops what a measurement recorded for a command that then failed. */
type Forget = () => void
/** measured ahead for the command about to run, taken by `sizesOf` */
const prepared = new WeakMap<Collection, Sizes>()

export function sizesOf (c: Collection): Sizes {
  const ready = prepared.get(c)
  if (ready !== undefined) {
    prepared.delete(c)
    return ready
  }
  return drain(measuring(c))
}

/**
 * Measures ahead the collections a stats command will report (none for other commands); the
 * returned function forgets what the command did not take (it failed before reporting).
 */
export async function prepareSizes (server: ServerState, name: string, body: Document, db: string): Promise<Forget> {
  const colls = reported(server, name, body, db)
  for (const c of colls) prepared.set(c, await sliced(measuring(c.snapshot())))
  return () => {
    for (const c of colls) prepared.delete(c)
  }
}

function reported (server: ServerState, name: string, body: Document, db: string): Collection[] {
  const catalog = server.catalog
  if (sameCommand(name, 'dbStats')) return catalog.collections(db)
  const target: unknown = body[name]
  if (typeof target !== 'string') return []
  const first: unknown = Array.isArray(body.pipeline) ? body.pipeline[0] : undefined
  const collStatsStage =
    name === 'aggregate' &&
    isPlainDoc(first) &&
    isPlainDoc(first.$collStats) &&
    first.$collStats.storageStats !== undefined
  const c = sameCommand(name, 'collStats') || collStatsStage ? catalog.get(db, target) : undefined
  return c !== undefined ? [c] : []
}

/** The measurement as steps: yields after each document or index entry. */
function * measuring (c: Collection): Generator<undefined, Sizes> {
  let size = 0
  for (const d of c.documents()) {
    size += calculateObjectSize(d)
    yield
  }
  const indexSizes: Record<string, number> = {}
  let totalIndexSize = 0
  for (const ix of c.indexes) {
    let bytes = 0
    for (const entry of ix.tree.keys()) {
      bytes += calculateObjectSize({ k: entry })
      yield
    }
    indexSizes[ix.name] = bytes
    totalIndexSize += bytes
  }
  return { count: c.size, size, indexSizes, totalIndexSize }
}

function drain (steps: Generator<undefined, Sizes>): Sizes {
  for (;;) {
    const r = steps.next()
    if (r.done === true) return r.value
  }
}

async function sliced (steps: Generator<undefined, Sizes>): Promise<Sizes> {
  for (;;) {
    const until = performance.now() + BATCH_SLICE_MS
    for (let i = 0; ; i++) {
      const r = steps.next()
      if (r.done === true) return r.value
      if ((i & 255) === 255 && performance.now() > until) break
    }
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}
