import type { Db, Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { insertEffects } from './effect-docs.js'
import { slotKey, stateOf, type Intent, type IntentStore } from './intents.js'

/**
 * Did the write of this intent happen? The record is in the intent's `to` state, or a later
 * write left that state (its intent — pending or a completed marker — holds the `to` slot).
 * Otherwise it is still in `from` (nothing else can move it from there while the intent holds
 * that slot): the write did not happen.
 */
export async function happened (store: IntentStore, intent: Intent, doc: Document | null): Promise<boolean> {
  if (stateOf(doc) === intent.to) return true
  return intent.to !== null && (await store.exists(slotKey(intent.coll, intent.recordId, intent.to)))
}

/**
 * Decides the pending intents of one write (`group`) against the records: each written record's
 * documents are inserted, and the write's bulk documents when any record was written
 * (idempotent by `_id`); the written records' intents are completed, the others dropped. Safe to run twice or on two replicas:
 * every step depends only on what is stored.
 */
export async function settleGroup (
  db: Db,
  store: IntentStore,
  group: string
): Promise<{ happened: number; dropped: number }> {
  const intents = await store.coll.find({ group, state: 'pending' }).toArray()
  const done: string[] = []
  const gone: string[] = []
  const byColl = new Map<string, Intent[]>()
  for (const i of intents) byColl.set(i.coll, [...(byColl.get(i.coll) ?? []), i])
  for (const [name, list] of byColl) {
    const docs = await db
      .collection(name)
      .find({ _id: { $in: list.map((i) => i.recordId) } }, { projection: { updatedAt: 1 } })
      .toArray()
    const byId = new Map(docs.map((d) => [String(d._id), d]))
    for (const i of list) {
      ;((await happened(store, i, byId.get(i.recordId.toHexString()) ?? null)) ? done : gone).push(i._id)
    }
  }
  if (done.length > 0) {
    const hit = new Set(done)
    const effects = intents.flatMap((i) => [
      ...(hit.has(i._id) ? (i.effects ?? []) : []),
      ...(i.leader ? (i.groupEffects ?? []) : [])
    ])
    if (effects.length > 0) await insertEffects(db, effects)
    await store.complete(group, done)
  }
  await store.release(group, gone)
  return { happened: done.length, dropped: gone.length }
}

/**
 * Takes over the expired pending intents of one write (lease bumped, so a second reconciler
 * skips them) and settles them. Answers false when someone else holds them.
 */
export async function reconcileGroup (
  db: Db,
  store: IntentStore,
  group: string,
  leaseMs: number
): Promise<{ happened: number; dropped: number } | null> {
  const now = new Date()
  const claimed = await store.coll.updateMany(
    { group, state: 'pending', leaseUntil: { $lt: now } },
    { $set: { leaseUntil: new Date(now.getTime() + leaseMs) } }
  )
  if (claimed.modifiedCount === 0) return null
  return await settleGroup(db, store, group)
}

/**
 * One reconciliation pass (start-up and periodic): every write whose writer vanished (lease
 * expired) gets its effects inserted if it happened, or its intent dropped if it did not.
 */
export async function reconcilePass (
  db: Db,
  store: IntentStore,
  leaseMs: number,
  log: FastifyBaseLogger,
  batch = 200
): Promise<{ happened: number; dropped: number }> {
  const total = { happened: 0, dropped: 0 }
  for (;;) {
    const stale = await store.coll
      .find({ state: 'pending', leaseUntil: { $lt: new Date() } }, { projection: { group: 1 }, limit: batch })
      .toArray()
    const groups = [...new Set(stale.map((i) => i.group))]
    for (const group of groups) {
      let r: { happened: number; dropped: number } | null
      try {
        r = await reconcileGroup(db, store, group, leaseMs)
      } catch (err) {
        // Its lease was bumped: the next pass after it expires tries again.
        log.error({ err, group }, 'write intent not settled; retried later')
        continue
      }
      if (r === null) continue
      total.happened += r.happened
      total.dropped += r.dropped
    }
    if (stale.length < batch) break
  }
  if (total.happened + total.dropped > 0) log.warn(total, 'write intents of interrupted writes reconciled')
  return total
}
