/**
 * Up-front validation of query filters so that everything mingo does not implement exactly
 * is refused with MongoDB's error instead of being silently evaluated differently.
 */
import type { Document } from 'bson'
import { CommandError, Codes, badValue } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { validateExpression } from './validate-expr.js'

const FIELD_OPS = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$type',
  '$size',
  '$all',
  '$elemMatch',
  '$regex',
  '$options',
  '$not',
  '$mod',
  '$bitsAllSet',
  '$bitsAllClear',
  '$bitsAnySet',
  '$bitsAnyClear'
])
const UNSUPPORTED_FIELD_OPS = new Set([
  '$geoWithin',
  '$geoIntersects',
  '$near',
  '$nearSphere',
  '$within',
  '$box',
  '$center',
  '$centerSphere',
  '$polygon',
  '$geometry',
  '$maxDistance',
  '$minDistance'
])

export interface FilterInfo {
  hasText: boolean
}

export function validateFilter (filter: unknown, info: FilterInfo = { hasText: false }, depth = 0): FilterInfo {
  if (!isPlainDoc(filter)) throw badValue('filter must be an object')
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$')) validateTopLevel(k, v, info, depth)
    else validateFieldValue(k, v)
  }
  return info
}

function validateTopLevel (k: string, v: unknown, info: FilterInfo, depth: number): void {
  switch (k) {
    case '$and':
    case '$or':
    case '$nor':
      if (!Array.isArray(v)) throw badValue(`${k} must be an array`)
      if (v.length === 0) throw badValue('$and/$or/$nor must be a nonempty array')
      for (const e of v) {
        if (!isPlainDoc(e)) throw badValue('$or/$and/$nor entries need to be full objects')
        validateFilter(e, info, depth + 1)
      }
      return
    case '$expr':
      validateExpression(v, '$expr')
      return
    case '$comment':
      return
    case '$text':
      if (depth > 0) throw badValue('$text is not allowed inside $or/$and/$nor in devdb')
      if (info.hasText) throw badValue('Too many text expressions')
      info.hasText = true
      if (!isPlainDoc(v)) throw badValue('$text expects an object')
      return
    case '$where':
      throw new CommandError(Codes.BadValue, 'BadValue', '$where is not allowed in this context')
    case '$jsonSchema':
      throw new CommandError(Codes.NotImplemented, 'NotImplemented', '$jsonSchema is not supported by devdb')
    default:
      throw badValue(
        `unknown top level operator: ${k}. If you are trying to use a field name that starts with a '$', please use $getField`
      )
  }
}

function validateFieldValue (field: string, v: unknown): void {
  if (!isPlainDoc(v)) return
  const keys = Object.keys(v)
  if (keys.length === 0 || !keys[0].startsWith('$')) return // embedded document equality
  for (const op of keys) {
    if (!op.startsWith('$')) throw badValue(`unknown operator: ${op}`)
    if (UNSUPPORTED_FIELD_OPS.has(op)) {
      throw new CommandError(Codes.NotImplemented, 'NotImplemented', `${op} is not supported by devdb`)
    }
    if (!FIELD_OPS.has(op)) throw badValue(`unknown operator: ${op}`)
    const arg = v[op]
    if (op === '$options' && !('$regex' in v)) throw badValue('$options needs a $regex')
    if (op === '$regex' && typeof arg !== 'string' && !(arg instanceof RegExp)) {
      throw badValue('$regex has to be a string')
    }
    if (op === '$elemMatch') {
      if (!isPlainDoc(arg)) throw badValue('$elemMatch needs an Object')
      validateElemMatch(arg)
    }
    if (op === '$not') {
      if (arg instanceof RegExp) continue
      if (!isPlainDoc(arg)) throw badValue('$not needs a regex or a document')
      if (Object.keys(arg).length === 0) throw badValue('$not cannot be empty')
      if (!Object.keys(arg).every((x) => x.startsWith('$'))) {
        throw badValue(`unknown operator: ${Object.keys(arg).find((x) => !x.startsWith('$')) ?? ''}`)
      }
      validateFieldValue(field, arg)
    }
    if (op === '$all' && !Array.isArray(arg)) throw badValue('$all needs an array')
    if (op === '$exists' || op === '$eq' || op === '$ne' || op === '$size') continue
  }
}

function validateElemMatch (arg: Document): void {
  const keys = Object.keys(arg)
  const opForm =
    keys.length > 0 &&
    keys[0].startsWith('$') &&
    !['$and', '$or', '$nor', '$expr', '$text', '$where', '$comment'].includes(keys[0])
  if (opForm) validateFieldValue('', arg)
  else validateFilter(arg)
}
