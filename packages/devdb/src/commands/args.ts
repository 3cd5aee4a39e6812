/** Argument helpers that fail with mongod's type errors. */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'

export function collectionArg (cmd: Document, name: string): string {
  const v = cmd[name]
  if (typeof v !== 'string') {
    throw new CommandError(
      Codes.InvalidNamespace,
      'InvalidNamespace',
      `collection name has invalid type ${typeLabel(v)}`
    )
  }
  if (v.length === 0) {
    throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `Invalid namespace specified '${name}.'`)
  }
  return v
}

export function typeLabel (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'string') return 'string'
  return 'object'
}

export function optionalDoc (cmd: Document, field: string, cmdName: string): Document | undefined {
  const v = cmd[field]
  if (v === undefined || v === null) return undefined
  if (!isPlainDoc(v)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${cmdName}.${field}' is the wrong type '${typeLabel(v)}', expected type 'object'`
    )
  }
  return v
}

export function optionalInt (cmd: Document, field: string, cmdName: string): number | undefined {
  const v = cmd[field]
  if (v === undefined || v === null) return undefined
  if (!isNumeric(v)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${cmdName}.${field}' is the wrong type '${typeLabel(v)}', expected types '[long, int, decimal, double']`
    )
  }
  const n = toNumber(v)
  if (!Number.isFinite(n) || !Number.isInteger(n)) {
    throw new CommandError(Codes.BadValue, 'BadValue', `BSON field '${field}' value must be an integer`)
  }
  return n
}

export function nonNegative (n: number | undefined, field: string): number | undefined {
  if (n !== undefined && n < 0) {
    throw new CommandError(51024, 'Location51024', `BSON field '${field}' value must be >= 0, actual value '${n}'`)
  }
  return n
}
