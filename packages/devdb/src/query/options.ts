/**
 * The one place mingo is configured: every query, projection, aggregation and update goes
 * through these options. We build the operator context ourselves (rather than using mingo's
 * default index, whose context always wins a merge) so the BSON-aware overrides take effect.
 */
import { Context, ProcessingMode } from 'mingo/core'
import { Query } from 'mingo/query'
import type { Options } from 'mingo/types'
import * as accumulatorOps from 'mingo/operators/accumulator'
import * as pipelineOps from 'mingo/operators/pipeline'
import * as projectionOps from 'mingo/operators/projection'
import * as queryOps from 'mingo/operators/query'
import * as windowOps from 'mingo/operators/window'
import type { Document } from 'bson'
import { bsonQueryOperators } from './bson-operators.js'
import { bsonExpressionOperators, bsonPipelineOperators } from './bson-overrides.js'
import { translateMingoError } from './mingo-errors.js'
import { normalizeFilter } from './normalize-filter.js'
import { accumulatorFixes, expressionFixes, stageFixes } from './expression-fixes.js'
import { stageValueFixes } from './stage-fixes.js'
import { numberExpressions } from './number-expressions.js'
import { adaptedMingoExpressions, truthy, valueExpressions } from './value-expressions.js'
import { accumulatorExpressions, numberAccumulators } from './number-accumulators.js'
import { $group } from './group-stage.js'
import { regexExpressions } from './regex-expressions.js'
import { projectionFixes } from './projection-ops.js'
import { evalExpr } from 'mingo/core'

const ops = (m: object): Record<string, never> =>
  Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith('$'))) as Record<string, never>

/** devdb's own expression operators; every other mingo operator is adapted to BSON values (value-expressions.ts). */
const OWN_EXPRESSIONS = {
  ...expressionFixes,
  ...bsonExpressionOperators,
  ...numberExpressions,
  ...valueExpressions,
  ...accumulatorExpressions,
  ...regexExpressions
}

/** `$expr` in a query: true by mongod's truth (a numeric zero of any type is false). */
const $expr =
  (_: string, expr: unknown, options: Options) =>
    (doc: Document): boolean =>
      truthy(evalExpr(doc, expr, options))

const CONTEXT = Context.init({
  accumulator: { ...ops(accumulatorOps), ...ops(accumulatorFixes), ...ops(numberAccumulators) },
  expression: { ...ops(adaptedMingoExpressions(new Set(Object.keys(OWN_EXPRESSIONS)))), ...ops(OWN_EXPRESSIONS) },
  pipeline: {
    ...ops(pipelineOps),
    ...ops(stageFixes),
    ...ops(stageValueFixes),
    ...ops(bsonPipelineOperators),
    $group: $group as never
  },
  projection: { ...ops(projectionOps), ...ops(projectionFixes) },
  query: { ...ops(queryOps), ...ops(bsonQueryOperators), $expr: $expr as never },
  window: ops(windowOps)
})

export function mingoOptions (extra: Partial<Options> = {}): Options {
  return {
    idKey: '_id',
    useStrictMode: true,
    scriptEnabled: false,
    failOnError: true,
    processingMode: ProcessingMode.CLONE_OFF,
    context: CONTEXT,
    ...extra
  }
}

export type Matcher = (doc: Document) => boolean

const matchAll: Matcher = () => true

/** Compiles a query filter; throws CommandError (BadValue …) for filters MongoDB rejects. */
export function compileFilter (filter: Document | undefined, extra: Partial<Options> = {}): Matcher {
  if (filter === undefined || filter === null) return matchAll
  const normalized = normalizeFilter(filter)
  if (Object.keys(normalized).length === 0) return matchAll
  try {
    const q = new Query(normalized, mingoOptions(extra))
    return (doc) => {
      try {
        return q.test(doc)
      } catch (e) {
        throw translateMingoError(e)
      }
    }
  } catch (e) {
    throw translateMingoError(e)
  }
}
