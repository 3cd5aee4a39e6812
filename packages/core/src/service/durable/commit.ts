import { setTimeout as sleep } from 'node:timers/promises'
import { ConflictError } from '../../errors.js'
import { insertEffects, isDuplicateKey, planEffects } from './effect-docs.js'
import { slotKey, type Intent, type RecordState } from './intents.js'
import { reconcileGroup, settleGroup } from './reconcile.js'
import { attemptInTransaction } from './transaction.js'
import { MISSED, type Attempt, type DurableContext, type PlannedWrite } from './types.js'

export type { DurableContext, PlannedWrite, Target } from './types.js'

/** How long a writer may wait for other writers of the same record before answering 409. */
const CONTENTION_MS = 5000

/** A stamp strictly after the record's state, so each write moves `updatedAt` to a new value. */
export function nextStamp (from: RecordState): Date {
  const now = Date.now()
  return new Date(from === null || from < now ? now : from + 1)
}

/**
 * The standalone (write-ahead) protocol for one planned write:
 * 1. build the effect documents; 2. insert one intent per target (its `_id` is the record's
 * slot: a second writer from the same state collides here); 3. write; 4. insert the effects;
 * 5. complete the intents. A crash after 2 leaves pending intents that the reconciler settles
 * by looking at the records. When the effect insert fails after a committed write, the
 * intents stay pending and the reconciler inserts them later.
 */
async function attemptWriteAhead (d: DurableContext, plan: PlannedWrite): Promise<Attempt> {
  const effects = await planEffects(d.effects, plan)
  const group = plan.results[0].writeId
  const now = new Date()
  const coll = plan.coll.collectionName
  const intents: Intent[] = plan.targets.map((t, i) => ({
    _id: slotKey(coll, t.recordId, t.from),
    state: 'pending',
    coll,
    recordId: t.recordId,
    from: t.from,
    to: t.to,
    group,
    leader: i === 0,
    effects: effects.ownOf(t),
    ...(i === 0 ? { groupEffects: effects.group } : {}),
    leaseUntil: new Date(now.getTime() + d.leaseMs),
    createdAt: now
  }))
  try {
    await d.store.coll.insertMany(intents, { ordered: false })
  } catch (err) {
    if (!isDuplicateKey(err)) throw err
    await d.store.coll.deleteMany({ group, state: 'pending' })
    return await contended(
      d,
      intents.map((i) => i._id)
    )
  }
  // A writer slowed down (event loop, database) near its lease renews it first, so a reconciler
  // never judges an intent whose write is still about to land; if one already did, plan again.
  if (Date.now() > now.getTime() + d.leaseMs / 2 && !(await d.store.renew(group, intents.length, d.leaseMs))) {
    await d.store.release(
      group,
      intents.map((i) => i._id)
    )
    return MISSED
  }
  let changed: string[]
  try {
    changed = await plan.write()
  } catch (err) {
    // Unknown whether it landed: decide from the records now, else the reconciler will.
    await settleGroup(d.db, d.store, group).catch((e: unknown) => {
      d.log.error({ err: e, group }, 'write intent left for the reconciler')
    })
    throw err
  }
  if (changed.length === 0) {
    await d.store.release(
      group,
      intents.map((i) => i._id)
    )
    return MISSED
  }
  const hit = new Set(changed)
  const due = effects.due(changed)
  try {
    if (due.length > 0) await insertEffects(d.db, due)
  } catch (err) {
    d.log.error({ err, group }, 'effects of a committed write not inserted yet; the reconciler will')
    return { ok: true, changed }
  }
  await d.store.complete(
    group,
    intents.filter((i) => hit.has(i.recordId.toHexString())).map((i) => i._id)
  )
  await d.store.release(
    group,
    intents.filter((i) => !hit.has(i.recordId.toHexString())).map((i) => i._id)
  )
  return { ok: true, changed }
}

/**
 * Another write holds a slot we need: settle it ourselves when its writer vanished (lease
 * expired), wait for it when it is in flight, re-read at once when it already completed.
 */
async function contended (d: DurableContext, ids: string[]): Promise<Attempt> {
  const held = await d.store.coll
    .find({ _id: { $in: ids } }, { projection: { state: 1, group: 1, leaseUntil: 1 } })
    .toArray()
  let wait = false
  let taken = false
  for (const h of held) {
    if (h.state === 'done') {
      taken = true
      continue
    }
    if (h.leaseUntil.getTime() < Date.now()) await reconcileGroup(d.db, d.store, h.group, d.leaseMs)
    else wait = true
  }
  return { ok: false, wait, taken }
}

/**
 * Runs `plan` (re-read the records, compute the write; `null`: nothing to write) and commits
 * it, planning again when another writer changed a record first; past `CONTENTION_MS` of
 * contention: 409. With transactions (`d.transactions`) each attempt is one transaction (see
 * transaction.ts); without, the write-ahead protocol above. Without effects there is nothing
 * to make durable: the guarded write alone — except that with transactions a write of several
 * records still runs in one, so a bulk write is all-or-nothing whatever the schema.
 * `taken` throws when a record's `from` state was already left by a completed write (a
 * create whose id is used; the transaction path gets the duplicate key itself).
 */
export async function commitDurably (
  d: DurableContext,
  plan: (attempt: number) => Promise<PlannedWrite | null>,
  taken?: () => never
): Promise<{ changed: string[] }> {
  const deadline = Date.now() + CONTENTION_MS
  for (let n = 0, pause = 5; ; n++) {
    const p = await plan(n)
    if (p === null) return { changed: [] }
    const out: Attempt =
      d.transactions && (d.effects.length > 0 || p.targets.length > 1)
        ? await attemptInTransaction(d, p, deadline)
        : d.effects.length === 0
          ? await plain(p)
          : await attemptWriteAhead(d, p)
    if (out.ok) return { changed: out.changed }
    if (out.taken && taken !== undefined) taken()
    if (Date.now() > deadline) throw new ConflictError('the record is being changed by other requests; retry')
    if (out.wait) {
      await sleep(pause)
      pause = Math.min(pause * 2, 100)
    }
  }
}

async function plain (p: PlannedWrite): Promise<Attempt> {
  const changed = await p.write()
  return changed.length > 0 ? { ok: true, changed } : MISSED
}
