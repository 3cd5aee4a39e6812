import { ValidationError } from '../errors.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'
import { isWritable } from '../schema/typebox.js'
import { parseDate } from '../values/convert.js'

export type InputMode = 'create' | 'update'

export interface PreparedInput {
  /** Values converted to BSON types (Date), defaults applied on create, strings lowercased. */
  set: Record<string, unknown>
  /** Top-level optional fields set to null on update: removed from the record. */
  unset: string[]
}

function invalid (field: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new ValidationError(`${field} ${message}`, { field, ...extra })
}

function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}

/** Mixed values are stored as given, but keys that MongoDB would read as operators or paths are refused. */
function checkMixedKeys (field: string, v: unknown, depth = 0): void {
  if (depth > 32) invalid(field, 'is nested too deeply')
  if (Array.isArray(v)) { for (const x of v) checkMixedKeys(field, x, depth + 1); return }
  if (!isObject(v)) return
  for (const k of Object.keys(v)) {
    if (k.startsWith('$') || k.includes('.')) invalid(field, `may not contain the key '${k}'`)
    checkMixedKeys(field, v[k], depth + 1)
  }
}

function value (f: FieldModel, path: string, v: unknown): unknown {
  switch (f.kind) {
    case 'string': {
      if (typeof v !== 'string') invalid(path, 'must be a string')
      const s = f.lowercase ? v.toLowerCase() : v
      if (f.enum !== undefined && !f.enum.includes(s)) invalid(path, `must be one of: ${f.enum.join(', ')}`, { allowed: f.enum })
      return s
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) invalid(path, 'must be a number')
      if (f.min !== undefined && v < f.min) invalid(path, `must be >= ${f.min}`, { min: f.min })
      if (f.enum !== undefined && !f.enum.includes(v)) invalid(path, `must be one of: ${f.enum.join(', ')}`, { allowed: f.enum })
      return v
    case 'boolean':
      if (typeof v !== 'boolean') invalid(path, 'must be a boolean')
      return v
    case 'date': return parseDate(v) ?? invalid(path, 'must be an ISO 8601 date')
    case 'mixed': checkMixedKeys(path, v); return v
    case 'array':
      if (!Array.isArray(v)) invalid(path, 'must be an array')
      return v.map((x, i) => value(f.items!, `${path}.${i}`, x))
    case 'object':
      if (!isObject(v)) invalid(path, 'must be an object')
      return object(f.fields!, v, 'create', path).set
    case 'file': return invalid(path, 'is managed by the file routes')
  }
}

function defaultOf (f: FieldModel): unknown {
  const d = typeof f.default === 'function' ? (f.default as () => unknown)() : f.default
  // Defaults are cloned so a mutable default ([] or {}) is never shared between records.
  return d !== null && typeof d === 'object' && !(d instanceof Date) ? structuredClone(d) : d
}

function object (fields: FieldModel[], input: Record<string, unknown>, mode: InputMode, prefix: string): PreparedInput {
  const set: Record<string, unknown> = {}
  const unset: string[] = []
  for (const f of fields) {
    if (!isWritable(f)) continue
    const path = prefix === '' ? f.name : `${prefix}.${f.name}`
    let v = input[f.name]
    if ((v === undefined || v === null) && mode === 'create' && f.default !== undefined) v = defaultOf(f)
    if (v === undefined || v === null) {
      if (f.required && (mode === 'create' || v === null)) invalid(path, 'is required')
      if (v === null) { if (mode === 'update') unset.push(f.name) }
      continue
    }
    set[f.name] = value(f, path, v)
  }
  return { set, unset }
}

/**
 * The inbound half of the BSON boundary, shared by every surface: validates a create or a
 * partial update against the model (required, types, enum, min, nested, arrays), applies
 * defaults and `lowercase`, converts dates. Unknown and stamped keys are dropped, never stored.
 */
export function prepareInput (model: ResourceModel, input: unknown, mode: InputMode): PreparedInput {
  if (!isObject(input)) throw new ValidationError('record must be a JSON object', { field: '' })
  return object(model.fields, input, mode, '')
}
