/**
 * What every devdb aggregation operator uses: mingo's operator signatures, mingo's own operator
 * tables typed with them (to wrap or fall back to), and mongod-style failures and type names.
 */
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import * as accumulatorOps from 'mingo/operators/accumulator'
import * as expressionOps from 'mingo/operators/expression'
import { CommandError } from '../errors.js'
import { bsonTypeName } from '../bson/bson-order.js'

/** An expression operator: `obj` the current document, `expr` its unevaluated argument. */
export type ExprOp = (obj: unknown, expr: unknown, options: Options) => unknown
/** An accumulator: the group's documents (or, in expression form, the evaluated array with a null `expr`). */
export type AccOp = (coll: unknown[], expr: unknown, options: Options) => unknown

export const mingoExpr = expressionOps as unknown as Record<string, ExprOp>
export const mingoAcc = accumulatorOps as unknown as Record<string, AccOp>

/** Fails as mongod does with one of its numbered locations (`Location<code>`). */
export function fail (code: number, msg: string): never {
  throw new CommandError(code, `Location${code}`, msg)
}

/** The BSON type name mongod prints in its messages (`missing` for an absent value). */
export function typeOf (v: unknown): string {
  return v === undefined ? 'missing' : bsonTypeName(v)
}

/** The evaluated operands, `expr` taken as one operand when it is not an array; arity checked like mongod (16020). */
export function operands (
  name: string,
  obj: unknown,
  expr: unknown,
  options: Options,
  min = 0,
  max = Infinity
): unknown[] {
  const v = evalExpr(obj, Array.isArray(expr) ? expr : [expr], options) as unknown[]
  if (v.length < min || v.length > max) {
    const want =
      min === max ? `exactly ${min}` : max === Infinity ? `at least ${min}` : `at least ${min} and at most ${max}`
    fail(
      16020,
      `Expression ${name} takes ${want} argument${min === 1 && max === 1 ? '' : 's'}. ${v.length} were passed in.`
    )
  }
  return v
}
