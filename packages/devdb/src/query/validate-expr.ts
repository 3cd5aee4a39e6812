/**
 * Aggregation expression validation against the operators mingo actually registers;
 * anything else is refused as MongoDB does (168 InvalidPipelineOperator).
 */
import * as expressionOps from 'mingo/operators/expression'
import * as accumulatorOps from 'mingo/operators/accumulator'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'

/** Operators mingo has but that would run user JavaScript or are not MongoDB 7.0 operators. */
const REFUSED = new Set(['$function', '$accumulator', '$toHashedIndexKey'])

export const EXPRESSION_OPERATORS = new Set(
  Object.keys(expressionOps).filter((k) => k.startsWith('$') && !REFUSED.has(k))
)
export const ACCUMULATOR_OPERATORS = new Set(
  Object.keys(accumulatorOps).filter((k) => k.startsWith('$') && !REFUSED.has(k))
)
// $meta is handled by the engine (textScore), not by mingo; the others are devdb's own (expression-fixes.ts).
for (const op of ['$meta', '$indexOfCP', '$toObjectId', '$bsonSize', '$binarySize', '$tsSecond', '$tsIncrement']) {
  EXPRESSION_OPERATORS.add(op)
}
// Accumulators MongoDB also accepts as expressions (mingo evaluates them in expression context).
for (const op of [
  '$sum',
  '$avg',
  '$max',
  '$min',
  '$stdDevPop',
  '$stdDevSamp',
  '$median',
  '$percentile',
  '$first',
  '$last',
  '$firstN',
  '$lastN',
  '$maxN',
  '$minN'
]) {
  if (ACCUMULATOR_OPERATORS.has(op)) EXPRESSION_OPERATORS.add(op)
}

/** mongod prefixes parse errors inside $project/$addFields/$set with "Invalid <stage> :: caused by :: ". */
function withContext (msg: string, context?: string): string {
  return context !== undefined && context !== '$expr' ? `Invalid ${context} :: caused by :: ${msg}` : msg
}

export function unrecognizedExpression (op: string, context?: string): CommandError {
  const base = `Unrecognized expression '${op}'`
  return new CommandError(
    Codes.InvalidPipelineOperator,
    'InvalidPipelineOperator',
    context !== undefined ? `Invalid ${context} :: caused by :: ${base}` : base
  )
}

/** Walks an aggregation expression; `context` decorates the message like mongod ("Invalid $project :: caused by :: …"). */
export function validateExpression (expr: unknown, context?: string): void {
  if (Array.isArray(expr)) {
    for (const e of expr) validateExpression(e, context)
    return
  }
  if (!isPlainDoc(expr)) return
  const keys = Object.keys(expr)
  if (keys.length === 0) return
  if (keys[0].startsWith('$')) {
    if (keys.length > 1) {
      throw new CommandError(
        15983,
        'Location15983',
        withContext(
          `An object representing an expression must have exactly one field: ${JSON.stringify(expr)}`,
          context
        )
      )
    }
    const op = keys[0]
    if (REFUSED.has(op)) {
      throw new CommandError(31264, 'Location31264', `${op} is not allowed in devdb (no server-side JavaScript)`)
    }
    if (!EXPRESSION_OPERATORS.has(op)) throw unrecognizedExpression(op, context === '$expr' ? undefined : context)
    if (op === '$literal') return
    validateExpression(expr[op], context)
    return
  }
  for (const k of keys) {
    if (k.startsWith('$')) {
      throw new CommandError(
        16410,
        'Location16410',
        withContext("FieldPath field names may not start with '$'. Consider using $getField or $setField.", context)
      )
    }
    validateExpression(expr[k], context)
  }
}
