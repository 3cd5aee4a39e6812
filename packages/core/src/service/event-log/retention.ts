import type { EventStore } from './event-store.js'

/**
 * Which stamped events may go: older than `retainMs` (by their write time), at or before every
 * durable consumer's checkpoint, and never the newest stamped one (the sequencer recovers its
 * counter from it after a crash). Answers the highest `seq` removed, or null when none was.
 */
export async function sweepEvents (
  store: EventStore,
  retainMs: number,
  counter: number,
  now = Date.now()
): Promise<number | null> {
  const lowest = await store.lowestCheckpoint()
  const bound = Math.min(lowest ?? Number.MAX_SAFE_INTEGER, counter - 1)
  if (bound < 1) return null
  const old = { at: { $lt: new Date(now - retainMs) }, seq: { $lte: bound } }
  const [top] = await store.coll.find(old, { sort: { seq: -1 }, limit: 1, projection: { seq: 1 } }).toArray()
  if (top?.seq === undefined) return null
  await store.coll.deleteMany({ ...old, seq: { $lte: top.seq } })
  return top.seq
}
