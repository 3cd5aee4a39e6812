import { formatPlan } from './plan-format.js'
import { processIo, withSchemaApp, type CommandIo } from './schema-app.js'

export interface SchemaPlanOptions {
  exact?: boolean
  sample?: number
  maxSeconds?: number
  json?: boolean
}

/** Exit code of a plan that production start-up would refuse (a deploy script can stop on it). */
export const PLAN_BLOCKED = 3

/**
 * `svc schema plan`: the schema files against the snapshot the database was last served with,
 * and the stored records each change leaves not fitting. Read-only; answers the exit code.
 */
export async function schemaPlan (
  opts: SchemaPlanOptions,
  env: NodeJS.ProcessEnv = process.env,
  io: CommandIo = processIo()
): Promise<number> {
  const plan = await withSchemaApp(
    env,
    async (app) =>
      await app.svc.evolution.plan({
        exact: opts.exact === true,
        ...(opts.sample !== undefined ? { sampleSize: opts.sample } : {}),
        ...(opts.maxSeconds !== undefined ? { timeBudgetMs: opts.maxSeconds * 1000 } : {})
      })
  )
  io.stdout.write(opts.json === true ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan))
  return plan.blocking.length > 0 ? PLAN_BLOCKED : 0
}
