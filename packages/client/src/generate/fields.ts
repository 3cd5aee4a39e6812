import type { DescribedField } from './describe.js'
import { key, union } from './names.js'

/** read: what the service answers; create/update: what a body may carry (dates also as `Date`). */
export type Mode = 'read' | 'create' | 'update'

const SCALARS: Record<string, { read: string; input: string; filter: string }> = {
  String: { read: 'string', input: 'string', filter: 'StringFilter' },
  Number: { read: 'number', input: 'number', filter: 'NumberFilter' },
  Boolean: { read: 'boolean', input: 'boolean', filter: 'BooleanFilter' },
  date: { read: 'string', input: 'DateInput', filter: 'DateFilter' }
}

function elementType (typeName: string): string | null {
  const m = /^\[(.+)\]$/.exec(typeName)
  return m === null ? null : m[1]
}

function hasEnum (f: DescribedField): f is DescribedField & { enum: unknown[] } {
  return Array.isArray(f.enum) && f.enum.length > 0
}

/** The TypeScript type of one field's value. */
export function valueType (f: DescribedField, mode: Mode): string {
  const scalar = SCALARS[f.type]
  if (scalar !== undefined) return hasEnum(f) ? union(f.enum) : mode === 'read' ? scalar.read : scalar.input
  if (f.type === 'Mixed') return 'unknown'
  if (f.type === 'File') return 'FileMeta'
  if (f.type === 'Object') return objectType(f.fields ?? [], mode === 'update' ? 'create' : mode)
  const item = elementType(f.type)
  if (item !== null) {
    const inner =
      item === 'Object'
        ? objectType(f.fields ?? [], mode === 'update' ? 'create' : mode)
        : valueType({ ...f, type: item, enum: undefined }, mode)
    return `Array<${inner}>`
  }
  return 'unknown'
}

/** Whether the field appears in a body of this mode (computed, stamped and file fields never do). */
export function writable (f: DescribedField): boolean {
  return f.computed !== true && f.stamped !== true && f.type !== 'File'
}

/** One `name?: type` member; `null` clears an optional field on update. */
export function member (f: DescribedField, mode: Mode): string {
  const type = valueType(f, mode)
  if (mode === 'read') {
    // A field the caller's role may not read is stripped from the answer.
    const optional = !f.required || f.acl?.read !== undefined
    return `${key(f.name)}${optional ? '?' : ''}: ${type}`
  }
  if (mode === 'create') return `${key(f.name)}${f.required && f.default === undefined ? '' : '?'}: ${type}`
  return `${key(f.name)}?: ${f.required ? type : `${type} | null`}`
}

function objectType (fields: DescribedField[], mode: Mode): string {
  const members = fields.filter((f) => mode === 'read' || writable(f)).map((f) => member(f, mode))
  return members.length === 0 ? 'Record<string, unknown>' : `{ ${members.join(', ')} }`
}

/** Filterable (and sortable) dotted paths with their filter type: scalars and arrays of scalars, nested ones included. */
export function filterPaths (fields: DescribedField[], prefix = ''): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (const f of fields) {
    if (f.computed === true || f.stamped === true) continue
    const path = `${prefix}${f.name}`
    const item = elementType(f.type) ?? f.type
    const scalar = SCALARS[item]
    if (scalar !== undefined) {
      out.push([path, item === 'String' && hasEnum(f) ? `EnumFilter<${union(f.enum)}>` : scalar.filter])
    } else if (item === 'Object') {
      out.push(...filterPaths(f.fields ?? [], `${path}.`))
    }
  }
  return out
}
