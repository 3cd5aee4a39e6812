/**
 * The update operators whose result depends on BSON types or BSON equality, applied by devdb at
 * concrete paths (positional ones resolved first, see positional.ts):
 * - `$inc`/`$mul`: mongod's promotion (int·int overflowing → long; a long overflowing is an
 *   error, as mongod's SafeNum; any double → double; decimal → decimal), exact over int64;
 * - `$min`/`$max`: BSON order under the statement's collation;
 * - `$bit`: int/long bitwise;
 * - `$addToSet`/`$push`: membership by BSON value, `$sort` by BSON order;
 * - `$pull`: mongod's matchers (a condition on each element, see `pull`).
 * (mingo's versions use JS arithmetic and equality, so they drop types and precision; its $pull
 * wraps any condition with an operator key, so `{ $or: […] }` matched nothing.)
 */
import { BSONRegExp, type Document } from 'bson'
import { CommandError, Codes } from '../../errors.js'
import { compareValues, type StringCompare } from '../../bson/bson-order.js'
import { keyString } from '../../bson/key-string.js'
import { formatValue } from '../../bson/format-value.js'
import { MISSING, getPath, isPlainDoc } from '../../bson/paths.js'
import { arith, asKind, numKind, toBig, toDouble, makeLong } from '../../bson/numeric.js'
import { parseSort, sortDocs } from '../../query/sort.js'
import { cloneDoc } from './clone.js'

export const TYPED_OPERATORS = new Set(['$inc', '$mul', '$min', '$max', '$bit', '$addToSet', '$push', '$pull'])

/** Compiles a query filter under the statement's collation. */
export type CompileFilter = (filter: Document) => (doc: Document) => boolean

/** Top-level query operators: a `$pull` condition starting with one is a query on each element. */
const TOP_LEVEL = new Set(['$and', '$or', '$nor', '$expr', '$where', '$text', '$comment', '$jsonSchema'])

/** Sets `path`, creating missing documents on the way and padding arrays with nulls (as mongod). */
export function setAt (doc: Document, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur: unknown = doc
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1
    const part = parts[i]
    if (Array.isArray(cur)) {
      const idx = Number(part)
      while (cur.length < idx) cur.push(null)
      if (last) {
        cur[idx] = value
        return
      }
      if (cur[idx] === undefined || cur[idx] === null) cur[idx] = {}
      cur = cur[idx]
    } else {
      const o = cur as Document
      if (last) {
        o[part] = value
        return
      }
      if (!Object.prototype.hasOwnProperty.call(o, part) || o[part] === undefined) o[part] = {}
      cur = o[part]
    }
  }
}

function overflow (op: string, cur: unknown, doc: Document): () => never {
  return () => {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Failed to apply ${op} operations to current value (${formatValue(cur)}) for document {_id: ${formatValue(doc._id)}}`
    )
  }
}

function bit (cur: unknown, spec: Document, path: string): unknown {
  let kind = numKind(cur) === 'long' ? 'long' : 'int'
  let acc = cur === MISSING ? 0n : toBig(cur)
  for (const [how, operand] of Object.entries(spec)) {
    const k = numKind(operand)
    if (k !== 'int' && k !== 'long') {
      throw new CommandError(
        Codes.BadValue,
        'BadValue',
        `The $bit modifier field must be an Integer(32/64 bit); a '${k ?? typeof operand}' is not supported here: {${how}: ${formatValue(operand)}}`
      )
    }
    if (k === 'long') kind = 'long'
    const b = toBig(operand)
    if (how === 'and') acc &= b
    else if (how === 'or') acc |= b
    else if (how === 'xor') acc ^= b
    else {
      throw new CommandError(
        Codes.BadValue,
        'BadValue',
        `The $bit modifier only supports 'and', 'or', and 'xor', not '${how}' which is an unknown operator: {${how}: ${formatValue(operand)}} for field '${path}'`
      )
    }
  }
  return kind === 'long' ? makeLong(BigInt.asIntN(64, acc)) : Number(BigInt.asIntN(32, acc))
}

function intArg (v: unknown, clause: string): number {
  if (numKind(v) === undefined || !Number.isInteger(toDouble(v))) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `The value for ${clause} must be an integer value but was given type: ${typeof v === 'object' ? 'object' : typeof v}`
    )
  }
  return toDouble(v)
}

function push (cur: unknown, arg: unknown, strCmp?: StringCompare): unknown[] {
  const list = cur === MISSING ? [] : [...(cur as unknown[])]
  const spec = isPlainDoc(arg) && '$each' in arg ? arg : { $each: [arg] }
  const each = (spec.$each as unknown[]).map(cloneDoc)
  let at = spec.$position === undefined ? list.length : intArg(spec.$position, '$position')
  if (at < 0) at = Math.max(0, list.length + at)
  list.splice(Math.min(at, list.length), 0, ...each)
  if (spec.$sort !== undefined) {
    const by = spec.$sort
    if (isPlainDoc(by)) {
      const docs = list as Document[]
      sortDocs(docs, parseSort(by), undefined, strCmp).forEach((d, i) => {
        list[i] = d
      })
    } else {
      const dir = numKind(by) !== undefined ? toDouble(by) : 0
      if (dir !== 1 && dir !== -1) {
        throw new CommandError(Codes.BadValue, 'BadValue', 'The $sort element value must be either 1 or -1')
      }
      list.sort((x, y) => dir * compareValues(x, y, strCmp))
    }
  }
  if (spec.$slice !== undefined) {
    const n = intArg(spec.$slice, '$slice')
    return n >= 0 ? list.slice(0, n) : list.slice(Math.max(0, list.length + n))
  }
  return list
}

function addToSet (cur: unknown, arg: unknown): unknown[] {
  const list = cur === MISSING ? [] : [...(cur as unknown[])]
  const have = new Set(list.map(keyString))
  const each = isPlainDoc(arg) && '$each' in arg ? (arg.$each as unknown[]) : [arg]
  for (const v of each) {
    const k = keyString(v)
    if (have.has(k)) continue
    have.add(k)
    list.push(cloneDoc(v))
  }
  return list
}

/**
 * `$pull` as mongod's PullNode: a document whose first field is not a field operator (`{ x: 1 }`,
 * `{ $or: […] }`, `{}`) is a query each element document must match; another document
 * (`{ $gte: 6 }`) or a regex is a condition on the element itself; any other value matches by
 * BSON equality under the collation.
 */
function pull (cur: unknown, arg: unknown, compile: CompileFilter, strCmp?: StringCompare): unknown {
  if (!Array.isArray(cur)) return MISSING
  let test: (v: unknown) => boolean
  const first = isPlainDoc(arg) ? Object.keys(arg)[0] : undefined
  if (isPlainDoc(arg) && (first === undefined || !first.startsWith('$') || TOP_LEVEL.has(first))) {
    const m = compile(arg)
    test = (v) => isPlainDoc(v) && m(v)
  } else if (isPlainDoc(arg) || arg instanceof RegExp || arg instanceof BSONRegExp) {
    const m = compile({ v: arg })
    test = (v) => m({ v })
  } else test = (v) => compareValues(v, arg, strCmp) === 0
  const kept = cur.filter((v) => !test(v))
  return kept.length === cur.length ? MISSING : kept
}

/** The new value of one path, or MISSING when the operator leaves it as it is. */
function next (
  op: string,
  cur: unknown,
  arg: unknown,
  path: string,
  doc: Document,
  compile: CompileFilter,
  strCmp?: StringCompare
): unknown {
  switch (op) {
    case '$inc':
      return cur === MISSING ? arg : arith('+', cur, arg, overflow(op, cur, doc))
    // On a missing field $mul writes a zero of the multiplier's type.
    case '$mul':
      return cur === MISSING ? asKind(numKind(arg)!, 0) : arith('*', cur, arg, overflow(op, cur, doc))
    case '$min':
      return cur === MISSING || compareValues(arg, cur, strCmp) < 0 ? cloneDoc(arg) : MISSING
    case '$max':
      return cur === MISSING || compareValues(arg, cur, strCmp) > 0 ? cloneDoc(arg) : MISSING
    case '$bit':
      return bit(cur, arg as Document, path)
    case '$addToSet':
      return addToSet(cur, arg)
    case '$push':
      return push(cur, arg, strCmp)
    case '$pull':
      return pull(cur, arg, compile, strCmp)
  }
  return MISSING
}

/** Applies the typed operators of `ops` (concrete paths, targets already checked) to `doc` in place. */
export function applyTypedOperators (
  doc: Document,
  ops: Document,
  compile: CompileFilter,
  strCmp?: StringCompare
): void {
  for (const [op, arg] of Object.entries(ops)) {
    if (!TYPED_OPERATORS.has(op)) continue
    for (const [path, v] of Object.entries(arg as Document)) {
      const value = next(op, getPath(doc, path), v, path, doc, compile, strCmp)
      if (value !== MISSING) setAt(doc, path, value)
    }
  }
}
