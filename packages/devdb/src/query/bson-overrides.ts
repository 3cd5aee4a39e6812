/**
 * Pipeline stage and expression operators replaced so that ordering and equality follow BSON
 * rules (numbers across types, ObjectId/Date/Decimal128 by value, MongoDB's cross-type order).
 */
import type { Document } from 'bson'
import { Lazy, type Iterator } from 'mingo/lazy'
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { compareValues } from '../engine/bson-order.js'
import { parseSort, sortDocs } from './sort.js'
import { CommandError, Codes } from '../errors.js'

type ExprOp = (obj: unknown, expr: unknown, options: Options) => unknown

function args2 (name: string, obj: unknown, expr: unknown, options: Options): [unknown, unknown] {
  const v = evalExpr(obj, expr, options)
  if (!Array.isArray(v) || v.length !== 2) {
    throw new CommandError(16020, 'Location16020', `Expression ${name} takes exactly 2 arguments. ${Array.isArray(v) ? v.length : 1} were passed in.`)
  }
  // Missing fields evaluate to undefined in mingo; MongoDB compares them as null-ish "missing".
  return [v[0] ?? null, v[1] ?? null]
}

function cmpOp (name: string, test: (c: number) => boolean): ExprOp {
  return (obj, expr, options) => {
    const [a, b] = args2(name, obj, expr, options)
    return test(compareValues(a, b))
  }
}

export const bsonExpressionOperators: Record<string, ExprOp> = {
  $eq: cmpOp('$eq', c => c === 0),
  $ne: cmpOp('$ne', c => c !== 0),
  $gt: cmpOp('$gt', c => c > 0),
  $gte: cmpOp('$gte', c => c >= 0),
  $lt: cmpOp('$lt', c => c < 0),
  $lte: cmpOp('$lte', c => c <= 0),
  $cmp: (obj, expr, options) => {
    const [a, b] = args2('$cmp', obj, expr, options)
    const c = compareValues(a, b)
    return c < 0 ? -1 : c > 0 ? 1 : 0
  }
}

export const bsonPipelineOperators = {
  $sort: (coll: Iterator, expr: unknown, _options: Options): Iterator => {
    const keys = parseSort(expr)
    if (keys.length === 0) throw new CommandError(15976, 'Location15976', '$sort stage must have at least one sort key')
    return coll.transform((docs: unknown[]) => Lazy(sortDocs(docs as Document[], keys)))
  }
}

void Codes
