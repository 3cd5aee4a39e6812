/**
 * The lazy result source of a find cursor: the plan executor produces each batch on demand, a
 * getMore runs on what is left of the find's maxTimeMS (mongod counts processing time across
 * the cursor's life), and a cursor whose collection was dropped or renamed dies with
 * QueryPlanKilled as mongod's does.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { Deadline, maxTimeExpired } from '../engine/deadline.js'
import type { Catalog } from '../engine/catalog.js'
import type { PlanExecutor } from '../plan/executor.js'
import type { ResultSource } from '../engine/cursors.js'

export function findSource (
  exec: PlanExecutor,
  catalog: Catalog,
  project: ((docs: Document[]) => Document[]) | undefined
): ResultSource {
  const coll = exec.ctx.coll
  const limited = exec.ctx.deadline.limited
  let budget = Infinity
  return {
    next: (slice) => exec.nextWithin(slice),
    project,
    pause: () => {
      exec.save()
      if (limited) budget = exec.ctx.deadline.remaining()
    },
    resume: () => {
      if (catalog.get(coll.db, coll.name) !== coll) {
        throw new CommandError(
          Codes.QueryPlanKilled,
          'QueryPlanKilled',
          'PlanExecutor error during getMore :: caused by :: collection dropped'
        )
      }
      if (budget <= 0) throw maxTimeExpired()
      if (limited) exec.ctx.deadline = new Deadline(budget)
    }
  }
}
