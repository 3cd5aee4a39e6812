/**
 * Aggregation pipelines: validation against the stages mingo registers, `$text`/`$meta`
 * handling, `$out`, and execution by mingo with a resolver for `$lookup`/`$unionWith`.
 */
import type { Document } from 'bson'
import * as pipelineOps from 'mingo/operators/pipeline'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { validateExpression, ACCUMULATOR_OPERATORS, unrecognizedExpression } from './validate-expr.js'
import { validateFilter } from './validate.js'

/** Stages refused although mingo has them ($setWindowFields needs mingo's $function); $out/$merge are written by the engine. */
const REFUSED_STAGES = new Set(['$setWindowFields', '$densify', '$fill'])
const ENGINE_STAGES = new Set(['$out', '$merge'])
export const PIPELINE_STAGES = new Set(
  Object.keys(pipelineOps).filter((k) => k.startsWith('$') && !REFUSED_STAGES.has(k) && !ENGINE_STAGES.has(k))
)

export const TEXT_SCORE_FIELD = '__devdb_textScore'

export function stageName (stage: unknown): string {
  if (!isPlainDoc(stage) || Object.keys(stage).length !== 1) {
    throw new CommandError(
      40323,
      'Location40323',
      'A pipeline stage specification object must contain exactly one field.'
    )
  }
  return Object.keys(stage)[0]
}

export function validatePipeline (pipeline: unknown, nested = false): Document[] {
  if (!Array.isArray(pipeline)) {
    throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', "'pipeline' option must be specified as an array")
  }
  pipeline.forEach((stage, i) => {
    const name = stageName(stage)
    const arg = (stage as Document)[name]
    if (REFUSED_STAGES.has(name)) {
      throw new CommandError(Codes.NotImplemented, 'NotImplemented', `${name} is not supported by devdb`)
    }
    if (ENGINE_STAGES.has(name)) {
      if (nested) {
        throw new CommandError(51047, 'Location51047', `${name} is not allowed to be used within a $lookup stage`)
      }
      if (i !== pipeline.length - 1) {
        throw new CommandError(40601, 'Location40601', `${name} can only be the final stage in the pipeline`)
      }
      return
    }
    // a leading $changeStream is opened by change-streams/stream.ts before the pipeline gets here
    if (name === '$changeStream') {
      throw new CommandError(40602, 'Location40602', '$changeStream is only valid as the first stage in a pipeline.')
    }
    if (!PIPELINE_STAGES.has(name)) {
      throw new CommandError(40324, 'Location40324', `Unrecognized pipeline stage name: '${name}'`)
    }
    validateStage(name, arg, i)
  })
  return pipeline as Document[]
}

function validateStage (name: string, arg: unknown, index: number): void {
  switch (name) {
    case '$match':
      if (!isPlainDoc(arg)) {
        throw new CommandError(15959, 'Location15959', 'the match filter must be an expression in an object')
      }
      if (validateFilter(arg).hasText && index !== 0) {
        throw new CommandError(17313, 'Location17313', '$match with $text is only allowed as the first pipeline stage')
      }
      return
    case '$project':
    case '$addFields':
    case '$set':
    case '$replaceRoot':
    case '$replaceWith':
    case '$bucket':
    case '$bucketAuto':
    case '$redact':
    case '$sortByCount':
      if (name === '$project' && isPlainDoc(arg) && Object.keys(arg).length === 0) {
        throw new CommandError(
          51272,
          'Location51272',
          'Invalid $project :: caused by :: projection specification must have at least one field'
        )
      }
      if (['$project', '$addFields', '$set'].includes(name) && isPlainDoc(arg)) {
        // The specification's own keys are field names, never operators.
        for (const [field, value] of Object.entries(arg)) {
          if (field.startsWith('$')) {
            throw new CommandError(
              16410,
              'Location16410',
              `Invalid ${name} :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField.`
            )
          }
          validateExpression(value, name)
        }
      } else validateExpression(arg, undefined)
      if (name === '$bucket' || name === '$bucketAuto') validateAccumulators(isPlainDoc(arg) ? arg.output : undefined)
      return
    case '$group': {
      if (!isPlainDoc(arg)) {
        throw new CommandError(15947, 'Location15947', "a group's fields must be specified in an object")
      }
      if (!('_id' in arg)) throw new CommandError(15955, 'Location15955', 'a group specification must include an _id')
      validateExpression(arg._id)
      const { _id: _, ...rest } = arg
      validateAccumulators(rest)
      return
    }
    case '$limit':
      if (!isNumeric(arg) || !Number.isInteger(toNumber(arg)) || toNumber(arg) <= 0) {
        throw new CommandError(15958, 'Location15958', 'the limit must be positive')
      }
      return
    case '$skip':
      if (!isNumeric(arg) || !Number.isInteger(toNumber(arg)) || toNumber(arg) < 0) {
        throw new CommandError(
          15956,
          'Location15956',
          'invalid argument to $skip stage: Expected a non-negative number'
        )
      }
      return
    case '$count':
      if (typeof arg !== 'string' || arg.length === 0) {
        throw new CommandError(40156, 'Location40156', 'the count field must be a non-empty string')
      }
      if (arg.startsWith('$')) {
        throw new CommandError(40158, 'Location40158', 'the count field cannot be a $-prefixed path')
      }
      if (arg.includes('.')) throw new CommandError(40160, 'Location40160', "the count field cannot contain '.'")
      return
    case '$lookup':
      if (isPlainDoc(arg) && Array.isArray(arg.pipeline)) validatePipeline(arg.pipeline, true)
      if (isPlainDoc(arg) && isPlainDoc(arg.from)) {
        throw new CommandError(
          Codes.NotImplemented,
          'NotImplemented',
          '$lookup across databases is not supported by devdb'
        )
      }
      return
    case '$unionWith':
      if (isPlainDoc(arg) && Array.isArray(arg.pipeline)) validatePipeline(arg.pipeline, true)
      return
    case '$facet':
      if (isPlainDoc(arg)) for (const sub of Object.values(arg)) validatePipeline(sub, true)
  }
}

function validateAccumulators (fields: unknown): void {
  if (!isPlainDoc(fields)) return
  for (const [field, spec] of Object.entries(fields)) {
    if (!isPlainDoc(spec) || Object.keys(spec).length !== 1) {
      throw new CommandError(40234, 'Location40234', `The field '${field}' must be an accumulator object`)
    }
    const op = Object.keys(spec)[0]
    if (!ACCUMULATOR_OPERATORS.has(op)) throw new CommandError(15952, 'Location15952', `unknown group operator '${op}'`)
    validateExpression(spec[op])
  }
}

/** Rewrites `{ $meta: 'textScore' }` into a reference to the hidden score field; reports whether it was used. */
export function rewriteMeta (v: unknown, used: { textScore: boolean }): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteMeta(x, used))
  if (!isPlainDoc(v)) return v
  const keys = Object.keys(v)
  if (keys.length === 1 && keys[0] === '$meta') {
    if (v.$meta !== 'textScore') throw unrecognizedExpression(`$meta: ${String(v.$meta)}`)
    used.textScore = true
    return '$' + TEXT_SCORE_FIELD
  }
  const out: Document = {}
  for (const k of keys) out[k] = rewriteMeta(v[k], used)
  return out
}

/** `$sort: { score: { $meta: 'textScore' } }` → sort on the hidden field, descending. */
export function rewriteSortMeta (spec: unknown, used: { textScore: boolean }): unknown {
  if (!isPlainDoc(spec)) return spec
  const out: Document = {}
  for (const [k, v] of Object.entries(spec)) {
    if (isPlainDoc(v) && v.$meta === 'textScore') {
      out[TEXT_SCORE_FIELD] = -1
      used.textScore = true
    } else out[k] = v
  }
  return out
}
