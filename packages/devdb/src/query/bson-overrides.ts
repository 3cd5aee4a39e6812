/**
 * Pipeline stage and expression operators replaced so that ordering and equality follow BSON
 * rules (numbers across types, ObjectId/Date/Decimal128 by value, MongoDB's cross-type order).
 */
import type { Document } from 'bson'
import { Lazy, type Iterator } from 'mingo/lazy'
import { $group } from './group-stage.js'
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { compareValues } from '../bson/bson-order.js'
import { parseSort, sortDocs } from './sort.js'
import { CommandError, Codes } from '../errors.js'
import { collatorOf } from '../collation/collation.js'
import type { ExprOp } from './operator-kit.js'

function args2 (name: string, obj: unknown, expr: unknown, options: Options): [unknown, unknown] {
  const v = evalExpr(obj, expr, options)
  if (!Array.isArray(v) || v.length !== 2) {
    throw new CommandError(
      16020,
      'Location16020',
      `Expression ${name} takes exactly 2 arguments. ${Array.isArray(v) ? v.length : 1} were passed in.`
    )
  }
  // Missing fields evaluate to undefined in mingo; MongoDB compares them as null-ish "missing".
  return [v[0] ?? null, v[1] ?? null]
}

function cmpOp (name: string, test: (c: number) => boolean): ExprOp {
  return (obj, expr, options) => {
    const [a, b] = args2(name, obj, expr, options)
    return test(compareValues(a, b, collatorOf(options)))
  }
}

export const bsonExpressionOperators: Record<string, ExprOp> = {
  $eq: cmpOp('$eq', (c) => c === 0),
  $ne: cmpOp('$ne', (c) => c !== 0),
  $gt: cmpOp('$gt', (c) => c > 0),
  $gte: cmpOp('$gte', (c) => c >= 0),
  $lt: cmpOp('$lt', (c) => c < 0),
  $lte: cmpOp('$lte', (c) => c <= 0),
  $cmp: (obj, expr, options) => {
    const [a, b] = args2('$cmp', obj, expr, options)
    const c = compareValues(a, b, collatorOf(options))
    return c < 0 ? -1 : c > 0 ? 1 : 0
  }
}

const $sort = (coll: Iterator, expr: unknown, options: Options): Iterator => {
  const keys = parseSort(expr)
  if (keys.length === 0) throw new CommandError(15976, 'Location15976', '$sort stage must have at least one sort key')
  if (keys.some((k) => k.meta === 'natural')) {
    throw new CommandError(Codes.BadValue, 'BadValue', '$natural is not a valid $sort key in an aggregation pipeline')
  }
  return coll.transform((docs: unknown[]) => Lazy(sortDocs(docs as Document[], keys, undefined, collatorOf(options))))
}

/**
 * $bucket exactly as mongod desugars it: a $group on a $switch over the boundaries, then a
 * $sort on _id. (mingo's own $bucket puts boundary values in the lower bucket and keeps empty buckets.)
 */
const $bucket = (coll: Iterator, expr: unknown, options: Options): Iterator => {
  const spec = expr as Document
  const bounds = spec?.boundaries
  if (!Array.isArray(bounds) || bounds.length < 2) {
    throw new CommandError(40192, 'Location40192', "The $bucket 'boundaries' field must have at least 2 values")
  }
  for (let i = 1; i < bounds.length; i++) {
    if (compareValues(bounds[i - 1], bounds[i]) >= 0) {
      throw new CommandError(
        40194,
        'Location40194',
        `The 'boundaries' option to $bucket must be sorted in ascending order, but elements ${i - 1} and ${i} are not in ascending order`
      )
    }
  }
  if (
    spec.default !== undefined &&
    compareValues(spec.default, bounds[0]) >= 0 &&
    compareValues(spec.default, bounds[bounds.length - 1]) < 0
  ) {
    throw new CommandError(
      40199,
      'Location40199',
      "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary."
    )
  }
  const branches = []
  for (let i = 0; i < bounds.length - 1; i++) {
    branches.push({
      case: {
        $and: [{ $gte: [spec.groupBy, { $literal: bounds[i] }] }, { $lt: [spec.groupBy, { $literal: bounds[i + 1] }] }]
      },
      then: { $literal: bounds[i] }
    })
  }
  const sw: Document = { branches }
  if (spec.default !== undefined) sw.default = { $literal: spec.default }
  const output = (spec.output as Document | undefined) ?? { count: { $sum: 1 } }
  const grouped = $group(coll, { _id: { $switch: sw }, ...output }, options)
  return $sort(grouped, { _id: 1 }, options)
}

/** $sortByCount as mongod desugars it: a $group counting by the expression, then a $sort on the count. */
const $sortByCount = (coll: Iterator, expr: unknown, options: Options): Iterator =>
  $sort($group(coll, { _id: expr, count: { $sum: 1 } }, options), { count: -1 }, options)

export const bsonPipelineOperators = { $sort, $bucket, $sortByCount }
