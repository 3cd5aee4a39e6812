import { setTimeout as sleep } from 'node:timers/promises'
import type { ClientSession, Db } from 'mongodb'
import { insertEffects, isDuplicateKey, planEffects, storedDocs, type PlanEffects } from './effect-docs.js'
import { bulkWriteSupported, writeTogether } from './one-command.js'
import {
  BUSY,
  MISSED,
  type Attempt,
  type DurableContext,
  type DurableDoc,
  type PlannedWrite,
  type RecordStatement
} from './types.js'

/** The driver's labels on errors of a transaction (MongoDB transactions specification). */
export const TRANSIENT = 'TransientTransactionError'
export const UNKNOWN_COMMIT = 'UnknownTransactionCommitResult'
const MAX_TIME_MS_EXPIRED = 50

export function hasLabel (err: unknown, label: string): boolean {
  const e = err as { hasErrorLabel?: (l: string) => boolean }
  return typeof e?.hasErrorLabel === 'function' && e.hasErrorLabel(label)
}

/**
 * Whether the server can run multi-document transactions: a replica-set member (`setName`) or
 * a mongos (`msg: 'isdbgrid'`); a standalone cannot (it refuses them with code 20).
 */
export async function transactionsSupported (db: Db): Promise<boolean> {
  const hello = await db.command({ hello: 1 })
  return typeof hello.setName === 'string' || hello.msg === 'isdbgrid'
}

/**
 * The transaction path of one planned write: the write (guarded as planned) and the effect
 * documents of the records it changed commit together or not at all, so no intent is needed.
 * The plan's reads stayed outside: the guard decides. A guard that no longer matches aborts
 * (plan again); a transient error (a concurrent writer's WriteConflict) aborts and backs off;
 * any other error — the write or an effect insert refused — aborts and refuses the write.
 */
export async function attemptInTransaction (d: DurableContext, plan: PlannedWrite, deadline: number): Promise<Attempt> {
  const effects = await planEffects(d.effects, plan)
  const session = d.db.client.startSession()
  try {
    // Effect documents found already stored (a replay of the same `_id`) count as written, as on the intent path.
    const stored: DurableDoc[] = []
    const statement = plan.statement !== undefined && (await bulkWriteSupported(d.db.client)) ? plan.statement : null
    for (;;) {
      session.startTransaction()
      if (statement !== null) {
        const out = await writeWithEffects(d, plan, statement, effects, stored, session)
        if (out === 'replayed') continue
        if (!out.ok) return out
        return (await commit(session, deadline)) ? out : BUSY
      }
      let changed: string[]
      try {
        changed = await plan.write(session)
      } catch (err) {
        await abort(session)
        return refused(err)
      }
      if (changed.length === 0) {
        await session.abortTransaction()
        return MISSED
      }
      const due = effects.due(changed).filter((doc) => !stored.includes(doc))
      try {
        if (due.length > 0) await insertEffects(d.db, due, session)
      } catch (err) {
        await abort(session)
        if (!isDuplicateKey(err)) return refused(err)
        stored.push(...(await replayedEffects(d, due, err)))
        continue
      }
      return (await commit(session, deadline)) ? { ok: true, changed } : BUSY
    }
  } finally {
    await session.endSession()
  }
}

/**
 * The record statement and its effect documents in one command (see one-command.ts), not yet
 * committed; 'replayed' when effect documents were found stored (try again without them).
 * Outcomes settle as on the statement-by-statement path.
 */
async function writeWithEffects (
  d: DurableContext,
  plan: PlannedWrite,
  statement: RecordStatement,
  effects: PlanEffects,
  stored: DurableDoc[],
  session: ClientSession
): Promise<Attempt | 'replayed'> {
  const targets = plan.targets.map((t) => t.recordId.toHexString())
  const due = effects.due(targets).filter((doc) => !stored.includes(doc))
  const out = await writeTogether(d.db, plan, statement, due, session)
  if (out.ok && out.landed) return { ok: true, changed: targets }
  await abort(session)
  if (out.ok) return MISSED
  if (out.at !== 'effect' || !isDuplicateKey(out.error)) return refused(out.error)
  stored.push(...(await replayedEffects(d, due, out.error)))
  return 'replayed'
}

/** Effect documents already stored (a replayed write); none means another unique index refused one. */
async function replayedEffects (d: DurableContext, due: DurableDoc[], err: unknown): Promise<DurableDoc[]> {
  const replayed = await storedDocs(d.db, due)
  // Another unique index of an effect collection refused a document: not the client's conflict.
  if (replayed.length === 0) {
    throw new Error('@svc/core: the database refused a durable effect document (a unique index of its collection)', {
      cause: err
    })
  }
  return replayed
}

async function abort (session: ClientSession): Promise<void> {
  if (session.inTransaction()) await session.abortTransaction()
}

/** After a failed statement (the transaction is aborted): a transient error is contention (back off, plan again), anything else refuses the write. */
function refused (err: unknown): Attempt {
  if (hasLabel(err, TRANSIENT)) return BUSY
  throw err
}

/**
 * Commits; false when the commit lost to a concurrent writer (transient: plan again). An
 * unknown commit result (a network error, a failover) is retried — the server answers a
 * repeated commit of a committed transaction with ok — until `deadline`, then thrown. Retries
 * back off (5 ms doubling to 200 ms): a server that keeps failing fast (ExceededTimeLimit, an
 * election) must not get thousands of commits from one request.
 */
async function commit (session: ClientSession, deadline: number): Promise<boolean> {
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    try {
      await session.commitTransaction()
      return true
    } catch (err) {
      if (
        hasLabel(err, UNKNOWN_COMMIT) &&
        (err as { code?: number }).code !== MAX_TIME_MS_EXPIRED &&
        Date.now() + pause < deadline
      ) {
        await sleep(pause)
        continue
      }
      if (hasLabel(err, TRANSIENT)) return false
      throw err
    }
  }
}
