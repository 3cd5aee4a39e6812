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

type ComputeOptionsClass = new (options: Options, locals?: { timestamp?: number }) => Options

/**
 * mingo copies its whole operator context (several hundred entries, ~10 µs) for every Query,
 * Aggregator and expression built from plain options; from an instance of its ComputeOptions
 * class it uses the instance's context as is. That class is internal to mingo: it is taken once,
 * here, from the options a query operator receives. Without it (another mingo) plain options.
 */
const COMPUTE_OPTIONS: ComputeOptionsClass | undefined = (() => {
  let found: { init?: unknown } | undefined
  const probe = Context.init({
    query: {
      $probe: ((_field: string, _value: unknown, options: Options) => {
        found = (options as object).constructor as { init?: unknown }
        return () => true
      }) as never
    }
  })
  // eslint-disable-next-line no-new
  new Query({ a: { $probe: 1 } }, { context: probe })
  return typeof found?.init === 'function' ? (found as unknown as ComputeOptionsClass) : undefined
})()

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

/**
 * `mingoOptions` as one of mingo's own options objects, which shares devdb's operator context
 * instead of copying it: for queries and pipeline updates only — their operators never add to
 * the context, where `$fill`, `$setWindowFields` and mingo's updater do (those keep the copy).
 * `now`: the time `$$NOW` reads for everything run with them (one statement: mongod evaluates
 * it once per statement); without it each evaluation takes the clock when first asked.
 */
export function sharedMingoOptions (extra: Partial<Options> = {}, now?: number): Options {
  const options = mingoOptions(extra)
  if (COMPUTE_OPTIONS === undefined) return options
  return new COMPUTE_OPTIONS(options, now !== undefined ? { timestamp: now } : undefined)
}

export type Matcher = (doc: Document) => boolean

const matchAll: Matcher = () => true

/** Compiles a query filter; throws CommandError (BadValue …) for filters MongoDB rejects. */
export function compileFilter (filter: Document | undefined, extra: Partial<Options> = {}): Matcher {
  if (filter === undefined || filter === null) return matchAll
  const normalized = normalizeFilter(filter)
  if (Object.keys(normalized).length === 0) return matchAll
  try {
    const q = new Query(normalized, sharedMingoOptions(extra))
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
