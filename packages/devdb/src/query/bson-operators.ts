/**
 * Query operators whose mingo versions use JS equality/ordering; these use BSON comparison
 * (ObjectId/Decimal128/Long by value, numbers across types, type bracketing) instead.
 */
import type { Document } from 'bson'
import { CommandError, Codes, badValue } from '../errors.js'
import { bsonTypeName, compareValues, rankOf, Rank, toNumber, isNumeric } from '../bson/bson-order.js'
import { candidates, MISSING } from './match-path.js'
import { keyString } from '../bson/key-string.js'
import { collatorOf } from '../collation/collation.js'
import type { StringCompare } from '../bson/bson-order.js'
import { linear } from './linear-regex.js'
import { isPlainDoc } from '../bson/paths.js'
import * as queryOps from 'mingo/operators/query'

const mingoQuery = queryOps as unknown as Record<string, QueryOp>

type Pred = (doc: Document) => boolean
type QueryOp = (selector: string, value: unknown, options: unknown) => Pred

const isNaNValue = (v: unknown): boolean => isNumeric(v) && Number.isNaN(toNumber(v))
const isNullish = (v: unknown): boolean => v === MISSING || v === null || v === undefined

function regexTest (re: unknown, v: unknown): boolean {
  if (typeof v !== 'string') return false
  if (re instanceof RegExp) return linear(re).test(v)
  const r = re as { pattern: string; options: string }
  return linear(new RegExp(r.pattern, r.options.replace(/[^imsu]/g, ''))).test(v)
}

const isRegexValue = (v: unknown): boolean => bsonTypeName(v) === 'regex'

/** MongoDB equality for one candidate: null matches missing; other values compare within their type bracket. */
function eqOne (c: unknown, v: unknown, strCmp?: StringCompare): boolean {
  if (v === null || v === undefined) return isNullish(c)
  if (c === MISSING) return false
  return rankOf(c) === rankOf(v) && compareValues(c, v, strCmp) === 0
}

function matchEq (doc: Document, selector: string, v: unknown, strCmp?: StringCompare): boolean {
  const { values } = candidates(doc, selector)
  for (const c of values) if (eqOne(c, v, strCmp)) return true
  return false
}

// Scalars whose canonical key string is equal exactly when MongoDB equality holds (numbers across types included).
const HASHABLE = new Set(['string', 'int', 'long', 'double', 'decimal', 'bool', 'date', 'objectId'])

/**
 * `$in`/`$nin` lists split once: scalar operands go into a Set of canonical keys (a lookup per
 * candidate instead of a comparison per operand), the rest (null, regex, arrays, objects) keep
 * the general per-operand test.
 */
function inMatcher (list: unknown[], strCmp?: StringCompare): (doc: Document, selector: string) => boolean {
  const keys = new Set<string>()
  const rest: unknown[] = []
  // Under a collation, strings equal by the collator have different key strings: compare them.
  for (const v of list) {
    if (HASHABLE.has(bsonTypeName(v)) && (strCmp === undefined || typeof v !== 'string')) keys.add(keyString(v))
    else rest.push(v)
  }
  return (doc, selector) => {
    if (keys.size > 0) {
      for (const c of candidates(doc, selector).values) {
        if (c !== MISSING && HASHABLE.has(bsonTypeName(c)) && keys.has(keyString(c))) return true
      }
    }
    return rest.length > 0 && inList(doc, selector, rest, strCmp)
  }
}

function inList (doc: Document, selector: string, list: unknown[], strCmp?: StringCompare): boolean {
  const { values } = candidates(doc, selector)
  for (const v of list) {
    if (isRegexValue(v)) {
      if (values.some((c) => regexTest(v, c))) return true
    } else if (values.some((c) => eqOne(c, v, strCmp))) return true
  }
  return false
}

function ordered (test: (c: number) => boolean, allowNullEq: boolean): QueryOp {
  return (selector, value, options) => (doc) => {
    const strCmp = collatorOf(options)
    const { values } = candidates(doc, selector)
    if (value === null) return allowNullEq && values.some(isNullish)
    const rv = rankOf(value)
    const nanOperand = isNaNValue(value)
    for (const c of values) {
      if (c === MISSING) continue
      // mongod: NaN equals NaN and compares false to every other value ($gte/$lte NaN match NaN only).
      if (nanOperand || isNaNValue(c)) {
        if (nanOperand && isNaNValue(c) && test(0)) return true
        continue
      }
      // MinKey/MaxKey operands compare against every type.
      if (rv === Rank.MinKey || rv === Rank.MaxKey || rankOf(c) === rv) {
        if (test(compareValues(c, value, strCmp))) return true
      }
    }
    return false
  }
}

function requireArray (op: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw badValue(`${op} needs an array`)
  for (const v of value) {
    if (
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v).some((k) => k.startsWith('$')) &&
      bsonTypeName(v) === 'object'
    ) {
      throw badValue(`cannot nest $ under ${op}`)
    }
  }
  return value
}

const TYPE_ALIASES: Record<string, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  5: 'binData',
  6: 'undefined',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  13: 'javascript',
  14: 'symbol',
  16: 'int',
  17: 'timestamp',
  18: 'long',
  19: 'decimal',
  '-1': 'minKey',
  127: 'maxKey'
}
const TYPE_NAMES = new Set([
  'double',
  'string',
  'object',
  'array',
  'binData',
  'undefined',
  'objectId',
  'bool',
  'date',
  'null',
  'regex',
  'javascript',
  'symbol',
  'int',
  'timestamp',
  'long',
  'decimal',
  'minKey',
  'maxKey',
  'number',
  'dbPointer',
  'javascriptWithScope'
])

function typeName (t: unknown): string {
  if (typeof t === 'string') {
    if (!TYPE_NAMES.has(t)) throw badValue(`Unknown type name alias: ${t}`)
    return t
  }
  if (isNumeric(t)) {
    const n = toNumber(t)
    const name = TYPE_ALIASES[String(n)]
    if (name === undefined) throw badValue(`Invalid numerical type code: ${n}`)
    return name
  }
  throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'type must be represented as a number or a string')
}

/**
 * `$all`: every listed value matches as `{ field: value }` would (regexes as patterns,
 * `$elemMatch` conditions as such) — so by BSON value, numbers across types.
 */
const $all: QueryOp = (selector, value, options) => {
  if (!Array.isArray(value)) throw badValue('$all needs an array')
  const preds = value.map((v): Pred => {
    if (v instanceof RegExp) return bsonQueryOperators.$regex(selector, v, options)
    if (isPlainDoc(v) && Object.keys(v)[0] === '$elemMatch') {
      return mingoQuery.$elemMatch(selector, v.$elemMatch, options)
    }
    return bsonQueryOperators.$eq(selector, v, options)
  })
  return (doc) => preds.length > 0 && preds.every((p) => p(doc))
}

export const bsonQueryOperators: Record<string, QueryOp> = {
  $all,
  // mingo copies the RegExp it is given into a plain one: match with the linear-time form
  $regex: (selector, value) => {
    const re = linear(value as RegExp)
    return (doc) => candidates(doc, selector).values.some((c) => typeof c === 'string' && re.test(c))
  },
  $eq: (selector, value, options) => {
    const strCmp = collatorOf(options)
    return (doc) => matchEq(doc, selector, value, strCmp)
  },
  $ne: (selector, value, options) => {
    const strCmp = collatorOf(options)
    return (doc) => !matchEq(doc, selector, value, strCmp)
  },
  $gt: ordered((c) => c > 0, false),
  $gte: ordered((c) => c >= 0, true),
  $lt: ordered((c) => c < 0, false),
  $lte: ordered((c) => c <= 0, true),
  $in: (selector, value, options) => {
    const matches = inMatcher(requireArray('$in', value), collatorOf(options))
    return (doc) => matches(doc, selector)
  },
  $nin: (selector, value, options) => {
    const matches = inMatcher(requireArray('$nin', value), collatorOf(options))
    return (doc) => !matches(doc, selector)
  },
  $exists: (selector, value) => {
    const want = !(value === false || value === 0 || value === null)
    return (doc) => candidates(doc, selector).values.some((c) => c !== MISSING) === want
  },
  $type: (selector, value) => {
    const names = (Array.isArray(value) ? value : [value]).map(typeName)
    return (doc) => {
      const { values, leaves } = candidates(doc, selector)
      for (const n of names) {
        if (n === 'array') {
          if (leaves.some(Array.isArray)) return true
          continue
        }
        for (const c of values) {
          if (c === MISSING) continue
          const t = bsonTypeName(c)
          if (t === n || (n === 'number' && isNumeric(c))) return true
        }
      }
      return false
    }
  },
  $size: (selector, value) => {
    if (!isNumeric(value)) throw badValue('$size needs a number')
    const n = toNumber(value)
    if (!Number.isInteger(n)) throw badValue('$size must be a whole number')
    if (n < 0) throw badValue('$size may not be negative')
    return (doc) => candidates(doc, selector).leaves.some((l) => Array.isArray(l) && l.length === n)
  },
  $mod: (selector, value) => {
    if (!Array.isArray(value)) throw badValue('malformed mod, needs to be an array')
    if (value.length < 2) throw badValue('malformed mod, not enough elements')
    if (value.length > 2) throw badValue('malformed mod, too many elements')
    if (!isNumeric(value[0])) throw badValue('malformed mod, divisor not a number')
    if (!isNumeric(value[1])) throw badValue('malformed mod, remainder not a number')
    const d = Math.trunc(toNumber(value[0]))
    const r = Math.trunc(toNumber(value[1]))
    if (d === 0) throw badValue('divisor cannot be 0')
    return (doc) =>
      candidates(doc, selector).values.some(
        (c) => c !== MISSING && isNumeric(c) && Number.isFinite(toNumber(c)) && Math.trunc(toNumber(c)) % d === r
      )
  }
}
