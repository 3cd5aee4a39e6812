/** Explain output in the shape of mongod 7.0's classic engine (explainVersion 1). */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import type { PlanExecutor } from './executor.js'

export type Verbosity = 'queryPlanner' | 'executionStats' | 'allPlansExecution'

export function parseVerbosity (v: unknown): Verbosity {
  if (v === undefined || v === null) return 'allPlansExecution'
  if (v === 'queryPlanner' || v === 'executionStats' || v === 'allPlansExecution') return v
  throw new CommandError(
    Codes.FailedToParse,
    'FailedToParse',
    "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}"
  )
}

export interface ExplainInput {
  ns: string
  filter?: Document
  exec?: PlanExecutor
  verbosity: Verbosity
  /** runs the plan to the end (executionStats); called only for those verbosities */
  run: () => void
  /** a plan answered without the planner (e.g. a count from collection metadata) */
  stage?: Document
}

/** The `queryPlanner` section and, above that verbosity, `executionStats`. */
export function explainSections ({ ns, filter, exec, verbosity, run, stage }: ExplainInput): Document {
  const winningPlan = exec?.root.explain(false) ?? stage ?? { stage: 'EOF' }
  const out: Document = {
    queryPlanner: {
      namespace: ns,
      indexFilterSet: false,
      parsedQuery: filter ?? {},
      planCacheUsed: exec?.fromCache ?? false,
      maxIndexedOrSolutionsReached: false,
      maxIndexedAndSolutionsReached: false,
      maxScansToExplodeReached: false,
      winningPlan,
      rejectedPlans: exec?.rejected.map((r) => r.explain(false)) ?? []
    }
  }
  if (verbosity === 'queryPlanner') return out
  const started = performance.now()
  run()
  const millis = exec?.millis ?? performance.now() - started
  out.executionStats = {
    executionSuccess: true,
    nReturned: exec?.nReturned ?? 0,
    executionTimeMillis: Math.round(millis),
    totalKeysExamined: exec?.root.keysExamined ?? 0,
    totalDocsExamined: exec?.root.docsExamined ?? 0,
    executionStages: exec?.root.explain(true) ?? { ...winningPlan, nReturned: 0, works: 1, advanced: 0, isEOF: 1 },
    ...(verbosity === 'allPlansExecution'
      ? {
          allPlansExecution:
            exec?.rejected.map((r) => ({
              nReturned: r.advanced,
              totalKeysExamined: r.keysExamined,
              totalDocsExamined: r.docsExamined,
              executionStages: r.explain(true)
            })) ?? []
        }
      : {})
  }
  return out
}

export function serverInfo (host: string, port: number, version: string): Document {
  return { host, port, version, gitVersion: 'devdb' }
}
